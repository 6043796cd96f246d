package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.testing.PgReplicaPair.Replication;
import dev.toolledger.server.FailoverRun.Outcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A real PostgreSQL primary with a synchronous streaming standby, two nodes on the multi-host URL
 * ({@code targetServerType=primary}) under load from six clients; the primary is SIGKILLed mid-load
 * and the standby promoted. Nothing a client was told is lost or done twice, and the nodes write
 * again on the new primary without a restart.
 */
class PostgresFailoverTest {
  /**
   * Longer than the clients' timeout, so that keys in flight at the kill are retried across the
   * failover, as they are when a failover manager takes seconds to decide.
   */
  static final Duration PROMOTION_DELAY = FailoverRun.CLIENT_TIMEOUT.plusSeconds(1);

  /**
   * Generous: on a busy two-core machine the nodes wrote again 0.1 to 2.6 s after the promotion,
   * most of it the pool's back-off between attempts to connect while no server accepted writes.
   */
  static final Duration WRITES_AGAIN_WITHIN = Duration.ofSeconds(15);

  @Test
  void aFailoverToASynchronousStandbyLosesNothingAcknowledgedAndDoesNothingTwice()
      throws Exception {
    Outcome outcome = FailoverRun.run(Replication.SYNCHRONOUS, PROMOTION_DELAY);
    System.out.println("failover " + outcome.summary());

    assertThat(outcome.unexpected()).as("answers other than 201, 503, 409 in progress").isEmpty();
    assertThat(outcome.acknowledgedBeforeKill()).as("load before the kill").isPositive();
    assertThat(outcome.retriedAcrossKill()).as("keys retried across the failover").isPositive();
    // Every acknowledged note is on the new primary, as the very note the client was told about.
    assertThat(outcome.lost()).isEmpty();
    assertThat(outcome.answerNotTheRecordedNote()).isEmpty();
    // No key has two notes, and no note exists that no client was told about.
    assertThat(outcome.duplicated()).isEmpty();
    assertThat(outcome.effectsWithoutAcknowledgement()).isEmpty();
    // Every acknowledged key, retried after the failover on the other node, replays its answer.
    assertThat(outcome.reExecuted()).isEmpty();
    assertThat(outcome.replayMismatches()).isEmpty();
    // Both nodes execute new operations on the promoted standby, without a restart.
    assertThat(outcome.nodesWritingAfterKill()).containsExactly(0, 1);
    assertThat(outcome.writesAgainAfterPromotion()).isLessThan(WRITES_AGAIN_WITHIN);
  }
}
