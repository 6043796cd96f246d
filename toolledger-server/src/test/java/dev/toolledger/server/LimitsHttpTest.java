package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.testkit.MovableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Limits over HTTP, each with a clear problem and nothing recorded: the request body (413), the
 * stored response (500 response-too-large) and the per-tenant rate of new operations (429 with
 * Retry-After).
 */
class LimitsHttpTest {
  static final String PROBLEMS = "https://toolledger.dev/problems/";

  @TempDir Path dir;
  final MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
  Cluster cluster;
  String acme;

  @BeforeEach
  void start() {
    cluster =
        Cluster.sqlite(
            dir.resolve("ledger.db"),
            node ->
                node.engineConfig(
                        EngineConfig.builder()
                            .clock(clock)
                            .maxResponseBytes(1024)
                            .newOperationLimit(new RateLimit(2, Duration.ofMinutes(1)))
                            .build())
                    .serverConfig(
                        ServerConfig.builder()
                            .port(0)
                            .maxRequestBytes(4096)
                            .shutdownGrace(Duration.ZERO)
                            .build()));
    acme = cluster.token("acme");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  Reply note(String token, String key, String title) {
    return Http.createNote(cluster.node(0), token, key, "{\"title\":\"" + title + "\"}");
  }

  @Test
  void newOperationsOverTheTenantsRateAre429WithRetryAfterAndRecordNothing() throws Exception {
    assertThat(note(acme, "op-1", "a").status()).isEqualTo(201);
    assertThat(note(acme, "op-2", "b").status()).isEqualTo(201);

    Reply limited = note(acme, "op-3", "c");

    assertThat(limited.status()).isEqualTo(429);
    assertThat(limited.problemType()).isEqualTo(PROBLEMS + "rate-limited");
    assertThat(limited.header("Retry-After")).isEqualTo("30");
    assertThat(limited.header("Idempotent-Replayed")).isNull();
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(2);
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(2);

    // Replays and lookups are not new operations.
    Reply replay = note(acme, "op-1", "a");
    assertThat(replay.status()).isEqualTo(201);
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(Http.get(cluster.node(0), "/v1/operations/op-2", acme).status()).isEqualTo(200);
    // Another tenant has its own allowance.
    assertThat(note(cluster.token("globex"), "op-3", "c").status()).isEqualTo(201);

    clock.advance(Duration.ofSeconds(30));
    assertThat(note(acme, "op-3", "c").status()).isEqualTo(201);
  }

  @Test
  void aResponseOverTheStoredLimitIs500ResponseTooLargeAndRecordsNothing() throws Exception {
    String body = "x".repeat(2000);

    Reply reply =
        Http.createNote(
            cluster.node(0), acme, "op-1", "{\"title\":\"big\",\"body\":\"" + body + "\"}");

    assertThat(reply.status()).isEqualTo(500);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "response-too-large");
    assertThat(reply.json().get("detail").asText()).contains("1024");
    assertThat(reply.header("Idempotent-Replayed")).isNull();
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isZero();
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    assertThat(Http.get(cluster.node(0), "/v1/operations/op-1", acme).status()).isEqualTo(404);
  }

  @Test
  void aRequestBodyOverTheLimitIs413AndRecordsNothing() throws Exception {
    Reply reply =
        Http.createNote(
            cluster.node(0),
            acme,
            "op-1",
            "{\"title\":\"big\",\"body\":\"" + "x".repeat(5000) + "\"}");

    assertThat(reply.status()).isEqualTo(413);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "payload-too-large");
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isZero();
  }
}
