package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A small scale run on real SQLite files: every scenario measured, the sweeper at work. */
class ScaleBenchTest {
  private static final long SMALL = 100;
  private static final long LARGE = 3_000;

  @TempDir static Path dir;

  private static ScaleBench bench;
  private static Map<String, Map<String, Measurement>> results;

  @BeforeAll
  static void runASmallScaleBench() throws Exception {
    bench =
        new ScaleBench(
            new ScaleBench.Options(
                dir,
                Optional.empty(),
                SMALL,
                LARGE,
                5_000,
                50,
                Duration.ofMillis(100),
                2,
                1,
                false),
            new PrintStream(OutputStream.nullOutputStream()));
    results = bench.run();
  }

  @Test
  void everyScenarioIsMeasuredOnBothLedgersWithoutErrors() {
    assertThat(results).containsOnlyKeys("sqlite-full");
    assertThat(results.get("sqlite-full"))
        .containsOnlyKeys(
            "keyed-create@" + SMALL,
            "keyed-create@" + LARGE,
            "keyed-create+sweep@" + LARGE,
            "lookup@" + SMALL,
            "lookup@" + LARGE,
            "lookup-floor@" + SMALL,
            "lookup-floor@" + LARGE);
    assertThat(results.get("sqlite-full").values())
        .allSatisfy(
            m -> {
              assertThat(m.failures).as(m.scenario).isZero();
              assertThat(m.operations).as(m.scenario).isPositive();
            });
  }

  @Test
  void theSweeperDeletedExpiredRecordsBesideTheWriters() {
    ScaleBench.SweepStats sweep = bench.sweeps.get("sqlite-full");
    assertThat(sweep.swept).isPositive();
    assertThat(sweep.batches).isPositive();
    // Batches of at most 50: never more records than batches allow.
    assertThat(sweep.swept).isLessThanOrEqualTo(sweep.batches * 50);
  }

  @Test
  void theReportSetsLookupAgainstItsTargetAndTheFloorAgainstNone() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    bench.print(results, SMALL, LARGE, new PrintStream(out, true, StandardCharsets.UTF_8));
    String report = out.toString(StandardCharsets.UTF_8);
    assertThat(report.lines())
        .anySatisfy(
            l -> assertThat(l).matches("sqlite-full lookup: 3000 records are .*target <= 1.2.*"))
        .anySatisfy(
            l -> assertThat(l).matches("sqlite-full lookup-floor: 3000 records are .*no target.*"))
        .anySatisfy(l -> assertThat(l).startsWith("sqlite-full sweeper beside writers: "));
  }
}
