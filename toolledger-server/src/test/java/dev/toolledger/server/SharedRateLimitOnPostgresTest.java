package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.testkit.MovableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes on one PostgreSQL schema with the shared rate limit: together they admit the limit, not
 * twice it; replays and lookups on either node are not counted.
 */
class SharedRateLimitOnPostgresTest {
  static final String RATE_LIMITED = "https://toolledger.dev/problems/rate-limited";
  static final int LIMIT = 5;

  final MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
  PostgresTestDatabase database;
  Cluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
    database.close();
  }

  @BeforeEach
  void createDatabase() {
    database = PostgresTestDatabase.create();
  }

  void start(boolean shared) {
    cluster =
        Cluster.postgres(
            database,
            2,
            node ->
                node.sharedRateLimit(shared)
                    .engineConfig(
                        EngineConfig.builder()
                            .clock(clock)
                            .newOperationLimit(new RateLimit(LIMIT, Duration.ofMinutes(1)))
                            .build()));
  }

  /** New keys sent to the two nodes in turn; the number admitted. */
  int admitted(String token, String prefix, int requests) {
    int admitted = 0;
    for (int i = 0; i < requests; i++) {
      Reply reply =
          Http.createNote(cluster.node(i % 2), token, prefix + i, "{\"title\":\"t" + i + "\"}");
      if (reply.status() == 201) {
        admitted++;
      } else {
        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.problemType()).isEqualTo(RATE_LIMITED);
        assertThat(reply.header("Retry-After")).isEqualTo("12");
      }
    }
    return admitted;
  }

  @Test
  void twoNodesTogetherAdmitTheLimitNotTwiceIt() throws Exception {
    start(true);
    String acme = cluster.token("acme");

    assertThat(admitted(acme, "op-", 4 * LIMIT)).isEqualTo(LIMIT);
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(LIMIT);

    // Replays and lookups on either node are not new operations, and take nothing.
    for (int i = 0; i < 2 * LIMIT; i++) {
      Reply replay = Http.createNote(cluster.node(i), acme, "op-0", "{\"title\":\"t0\"}");
      assertThat(replay.status()).isEqualTo(201);
      assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(Http.get(cluster.node(i), "/v1/operations/op-1", acme).status()).isEqualTo(200);
    }
    // Another tenant has its own bucket.
    assertThat(admitted(cluster.token("globex"), "g-", 2 * LIMIT)).isEqualTo(LIMIT);

    // A permit refills every period / limit = 12 s, for the nodes together.
    clock.advance(Duration.ofSeconds(12));
    assertThat(admitted(acme, "later-", 4)).isEqualTo(1);
    clock.advance(Duration.ofMinutes(5));
    assertThat(admitted(acme, "much-later-", 4 * LIMIT)).isEqualTo(LIMIT);
  }

  @Test
  void perNodeLimitsAdmitTheLimitOnEachNode() {
    start(false);

    assertThat(admitted(cluster.token("acme"), "op-", 4 * LIMIT)).isEqualTo(2 * LIMIT);
  }
}
