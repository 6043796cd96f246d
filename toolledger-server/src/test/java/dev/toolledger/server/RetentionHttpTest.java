package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.testkit.MovableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention over HTTP: records show when they expire, the sweep removes them, and a late retry or
 * lookup of a swept key is answered 410 operation-expired instead of executing again. The node's
 * engine runs on a clock the test moves.
 */
class RetentionHttpTest {
  static final String EXPIRED = "https://toolledger.dev/problems/operation-expired";
  static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");

  @TempDir Path dir;
  final MovableClock clock = new MovableClock(T0);
  Cluster cluster;

  Cluster start(UnaryOperator<EngineConfig.Builder> engine, Duration sweepInterval) {
    cluster =
        Cluster.sqlite(
            dir.resolve("ledger.db"),
            node ->
                node.engineConfig(engine.apply(EngineConfig.builder().clock(clock)).build())
                    .sweepInterval(sweepInterval));
    return cluster;
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void lateRetryOfASweptKeyIs410AndCreatesNothing() throws Exception {
    start(UnaryOperator.identity(), Duration.ZERO);
    String acme = cluster.token("acme");
    Reply created = Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");
    assertThat(created.status()).isEqualTo(201);
    JsonNode lookup = Http.get(cluster.node(0), "/v1/operations/op-1", acme).json();
    assertThat(lookup.get("expiresAt").asText()).isEqualTo(T0.plus(Duration.ofDays(7)).toString());

    clock.advance(Duration.ofDays(7));
    cluster.app(0).engine().sweep(500);
    Reply late = Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");
    Reply changed = Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"bread\"}");

    for (Reply reply : new Reply[] {late, changed}) {
      assertThat(reply.status()).isEqualTo(410);
      assertThat(reply.problemType()).isEqualTo(EXPIRED);
      assertThat(reply.header("Content-Type")).startsWith("application/problem+json");
      assertThat(reply.header("Idempotent-Replayed")).as("not a recorded outcome").isNull();
      assertThat(reply.json().get("expiredAt").asText())
          .isEqualTo(T0.plus(Duration.ofDays(7)).toString());
    }
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(1);
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isZero();
  }

  @Test
  void lateRetriesAreCountedAsExpiredRequestsAndNeverAsEffects() {
    start(UnaryOperator.identity(), Duration.ZERO);
    String acme = cluster.token("acme");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");
    clock.advance(Duration.ofDays(7));
    cluster.app(0).engine().sweep(500);
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");

    Reply scrape = Http.get(cluster.node(0), "/metrics", null);
    assertThat(scrape.status()).as(scrape.body()).isEqualTo(200);
    Metrics metrics = new Metrics(scrape.body());

    assertThat(
            metrics.count(
                "toolledger_requests_total", Map.of("tool", "create-note", "outcome", "expired")))
        .isEqualTo(2);
    assertThat(
            metrics.count(
                "toolledger_requests_total", Map.of("tool", "create-note", "outcome", "executed")))
        .isEqualTo(1);
    assertThat(metrics.count("toolledger_effects_total", Map.of("tool", "create-note")))
        .isEqualTo(1);
  }

  @Test
  void lookupAndResolveOfASweptKeyAre410AndAKeyNeverSeenIs404() {
    start(UnaryOperator.identity(), Duration.ZERO);
    String acme = cluster.token("acme");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");
    clock.advance(Duration.ofDays(7));
    cluster.app(0).engine().sweep(500);

    Reply lookup = Http.get(cluster.node(0), "/v1/operations/op-1", acme);
    Reply inquiry = Http.post(cluster.node(0), "/v1/operations/op-1/resolve", acme, null, "{}");
    Reply never = Http.get(cluster.node(0), "/v1/operations/op-never", acme);

    assertThat(lookup.status()).isEqualTo(410);
    assertThat(lookup.problemType()).isEqualTo(EXPIRED);
    assertThat(inquiry.status()).isEqualTo(410);
    assertThat(inquiry.problemType()).isEqualTo(EXPIRED);
    assertThat(never.status()).isEqualTo(404);
  }

  @Test
  void afterTheTombstoneWindowTheKeyIsNewAgain() throws Exception {
    start(e -> e.tombstoneWindow(Duration.ofDays(2)), Duration.ZERO);
    String acme = cluster.token("acme");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");
    clock.advance(Duration.ofDays(7));
    cluster.app(0).engine().sweep(500);
    clock.advance(Duration.ofDays(2));

    Reply again = Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");

    assertThat(again.status()).isEqualTo(201);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(2);
  }

  @Test
  void aRetentionOverrideIsWhatToolsAndLookupsShow() {
    start(e -> e.retention("create-note", Duration.ofDays(30)), Duration.ZERO);
    String acme = cluster.token("acme");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");

    JsonNode tools = Http.get(cluster.node(0), "/v1/tools", acme).json();
    JsonNode lookup = Http.get(cluster.node(0), "/v1/operations/op-1", acme).json();

    assertThat(tools.get("tools").get(0).get("retentionSeconds").asLong())
        .isEqualTo(Duration.ofDays(30).toSeconds());
    assertThat(lookup.get("expiresAt").asText()).isEqualTo(T0.plus(Duration.ofDays(30)).toString());
  }

  @Test
  void theNodesOwnSweeperRemovesExpiredRecords() throws Exception {
    start(UnaryOperator.identity(), Duration.ofMillis(20));
    String acme = cluster.token("acme");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"milk\"}");

    clock.advance(Duration.ofDays(7));

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (Http.get(cluster.node(0), "/v1/operations/op-1", acme).status() != 410) {
      assertThat(System.nanoTime()).as("the sweeper never ran").isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
