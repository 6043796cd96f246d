package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.testing.PgReplicaPair.Replication;
import dev.toolledger.server.FailoverRun.Outcome;
import org.junit.jupiter.api.Test;

/**
 * The same failover as {@link PostgresFailoverTest} with asynchronous replication, run several
 * times to count what it loses. Not part of the build (its name does not end in Test, and whether a
 * run loses anything depends on timing); run it with
 *
 * <pre>
 * TOOLLEDGER_FAILOVER_RUNS=5 mvn -B -q -pl toolledger-server -am test \
 *   -Dtest=AsyncFailoverMeasurement -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * and read the figures in {@code toolledger-server/target/surefire-reports/
 * dev.toolledger.server.AsyncFailoverMeasurement-output.txt}. It fails only on what no replication
 * mode excuses: an answer other than 201, 503 or 409, or a key with two notes left by the load.
 */
class AsyncFailoverMeasurement {
  @Test
  void measureWhatAnAsynchronousFailoverLoses() throws Exception {
    String configured = System.getenv("TOOLLEDGER_FAILOVER_RUNS");
    int runs = configured == null ? 3 : Integer.parseInt(configured.strip());
    int lost = 0;
    int reExecuted = 0;
    int runsWithLoss = 0;
    for (int run = 1; run <= runs; run++) {
      Outcome outcome =
          FailoverRun.run(Replication.ASYNCHRONOUS, PostgresFailoverTest.PROMOTION_DELAY);
      System.out.println("run " + run + " " + outcome.summary());
      if (!outcome.lost().isEmpty()) {
        System.out.println("  lost: " + outcome.lost() + "; re-executed: " + outcome.reExecuted());
        runsWithLoss++;
      }
      lost += outcome.lost().size();
      reExecuted += outcome.reExecuted().size();
      assertThat(outcome.unexpected()).isEmpty();
      assertThat(outcome.duplicated()).isEmpty();
    }
    System.out.printf(
        "asynchronous replication, %d runs: %d with a loss, %d acknowledged operations lost,"
            + " %d of them executed again by their retry%n",
        runs, runsWithLoss, lost, reExecuted);
  }
}
