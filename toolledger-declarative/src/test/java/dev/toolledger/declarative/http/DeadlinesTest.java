package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.core5.concurrent.Cancellable;
import org.junit.jupiter.api.Test;

/** The watcher of whole-answer timeouts: it cancels late exchanges and sleeps while idle. */
class DeadlinesTest {
  private static final long WITHIN_SECONDS = 5;

  @Test
  void anExchangePastItsTimeoutIsCancelled() throws Exception {
    Deadlines deadlines = new Deadlines();
    CountDownLatch cancelled = new CountDownLatch(1);

    try (Deadlines.Watch watch = deadlines.watch(latch(cancelled), Duration.ofMillis(100))) {
      assertThat(cancelled.await(WITHIN_SECONDS, TimeUnit.SECONDS)).isTrue();
      assertThat(watch.fired()).isTrue();
    }
  }

  @Test
  void anExchangeThatEndsInTimeIsNeverCancelled() throws Exception {
    Deadlines deadlines = new Deadlines();
    AtomicInteger cancels = new AtomicInteger();

    Deadlines.Watch watch =
        deadlines.watch(
            () -> {
              cancels.incrementAndGet();
              return true;
            },
            Duration.ofMillis(200));
    watch.close();
    Thread.sleep(400 + 2 * Deadlines.TICK.toMillis());

    assertThat(watch.fired()).isFalse();
    assertThat(cancels).hasValue(0);
  }

  @Test
  void theWatcherParksWhileNothingIsInFlightAndWakesForTheNextLateExchange() throws Exception {
    Deadlines deadlines = new Deadlines();
    deadlines.watch(() -> true, Duration.ofSeconds(30)).close();

    // Idle: parked without a timeout (WAITING), not ticking (TIMED_WAITING, every 50 ms).
    awaitState(deadlines.thread(), Thread.State.WAITING);

    CountDownLatch cancelled = new CountDownLatch(1);
    try (Deadlines.Watch late = deadlines.watch(latch(cancelled), Duration.ofMillis(100))) {
      assertThat(cancelled.await(WITHIN_SECONDS, TimeUnit.SECONDS))
          .as("an exchange started after an idle spell is still cancelled at its deadline")
          .isTrue();
      assertThat(late.fired()).isTrue();
    }
    awaitState(deadlines.thread(), Thread.State.WAITING);
  }

  private static Cancellable latch(CountDownLatch cancelled) {
    return () -> {
      cancelled.countDown();
      return true;
    };
  }

  private static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WITHIN_SECONDS);
    while (thread.getState() != state && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
    assertThat(thread.getState()).as("the watcher thread's state").isEqualTo(state);
  }
}
