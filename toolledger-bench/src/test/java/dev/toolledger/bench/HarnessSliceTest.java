package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One slice of the harness, on a scenario that fails on purpose: nothing is lost or hidden. */
class HarnessSliceTest {
  private static final Duration SLICE = Duration.ofMillis(150);

  private final Harness harness =
      new Harness(
          new BenchOptions(
              Path.of("unused"),
              Optional.empty(),
              SLICE,
              1,
              List.of(1),
              Optional.empty(),
              Optional.empty(),
              false,
              List.of()),
          new PrintStream(OutputStream.nullOutputStream()));

  /** Fails every third call of each thread; records which threads ran and the hooks' order. */
  private static final class EveryThirdFails implements Scenario {
    final AtomicLong calls = new AtomicLong();
    final Set<Integer> threads = ConcurrentHashMap.newKeySet();
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
      return "every-third-fails";
    }

    @Override
    public void beforeSlice() {
      events.add("before");
    }

    @Override
    public void afterSlice() {
      events.add("after");
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      if (calls.incrementAndGet() == 1) {
        events.add("first run");
      }
      threads.add(thread);
      Thread.sleep(1);
      if (sequence % 3 == 2) {
        throw new IllegalStateException("failed on purpose");
      }
    }
  }

  @Test
  void everyCallIsCountedAsAnOperationOrAFailure() throws Exception {
    EveryThirdFails scenario = new EveryThirdFails();
    Measurement into = new Measurement("test", scenario.name(), 3);

    harness.slice(scenario, 3, into);

    assertThat(scenario.threads).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(into.operations + into.failures).isEqualTo(scenario.calls.get());
    assertThat(into.failures).isPositive();
    // Each thread's calls 3, 6, 9, ... fail: n calls are n / 3 failures and the rest successes.
    assertThat(into.operations).isBetween(2 * into.failures, 2 * into.failures + 6);
    assertThat(into.latencies.getTotalCount()).isEqualTo(into.operations);
    assertThat(into.nanos).isGreaterThanOrEqualTo(SLICE.toNanos());
    assertThat(scenario.events).containsExactly("before", "first run", "after");
  }

  @Test
  void slicesAddUpInTheirMeasurement() throws Exception {
    EveryThirdFails scenario = new EveryThirdFails();
    Measurement into = new Measurement("test", scenario.name(), 1);

    harness.slice(scenario, 1, into);
    long afterOne = into.operations;
    harness.slice(scenario, 1, into);

    assertThat(into.operations).isGreaterThan(afterOne);
    assertThat(into.operations + into.failures).isEqualTo(scenario.calls.get());
    assertThat(into.nanos).isGreaterThanOrEqualTo(2 * SLICE.toNanos());
  }

  @Test
  void aWarmUpSliceRunsTheScenarioAndRecordsNothing() throws Exception {
    EveryThirdFails scenario = new EveryThirdFails();

    harness.slice(scenario, 2, null);

    assertThat(scenario.calls.get()).isPositive();
    assertThat(scenario.events).containsExactly("before", "first run", "after");
  }
}
