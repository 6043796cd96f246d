package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.auth.OperatorAuthenticator;
import dev.toolledger.server.observe.MetricsAccess;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} on a real node: requests, business effects and replays are counted apart,
 * refusals before and inside the engine alike; the gauges read the database; and only those the
 * configured access lets in can read it.
 */
class MetricsHttpTest {
  private static final String OPERATOR_TOKEN = "operator-secret-for-tests-0123456789";

  @TempDir Path dir;
  MailTool mail = new MailTool();
  Cluster cluster;

  void start(UnaryOperator<ToolLedgerApp.Builder> customize) {
    cluster =
        Cluster.sqlite(dir.resolve("ledger.db"), builder -> customize.apply(builder.tool(mail)));
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  Metrics scrape(String token) {
    Reply reply = Http.get(cluster.node(0), "/metrics", token);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.header("Content-Type")).startsWith("text/plain; version=0.0.4");
    return new Metrics(reply.body());
  }

  static Map<String, String> of(String tool, String outcome) {
    return Map.of("tool", tool, "outcome", outcome);
  }

  @Test
  void retriesAddRequestsAndReplaysButNeverEffects() {
    start(UnaryOperator.identity());
    String acme = cluster.token("acme");
    for (int i = 0; i < 3; i++) {
      Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"once\"}");
    }
    Http.createNote(cluster.node(0), acme, "op-2", "{\"title\":\"another\"}");

    Metrics metrics = scrape(null);

    assertThat(metrics.count("toolledger_requests_total", of("create-note", "executed")))
        .isEqualTo(2);
    assertThat(metrics.count("toolledger_requests_total", of("create-note", "replayed")))
        .isEqualTo(2);
    assertThat(metrics.count("toolledger_effects_total", Map.of("tool", "create-note")))
        .isEqualTo(2);
    assertThat(
            metrics.count(
                "toolledger_request_duration_seconds_count", of("create-note", "replayed")))
        .isEqualTo(2);
    assertThat(metrics.has("toolledger_request_duration_seconds_bucket")).isTrue();
  }

  @Test
  void refusalsConflictsAndRecordedBusinessErrorsAreRequestsWithoutEffects() {
    start(
        builder ->
            builder.plugin(
                NotesPlugin.serving(dev.toolledger.examples.notes.NotesTool.withQuota(1))));
    String acme = cluster.token("acme");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"a\"}");
    Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"changed\"}"); // conflict
    Http.createNote(cluster.node(0), acme, "op-2", "{\"title\":\"\"}"); // invalid parameters
    Http.createNote(cluster.node(0), acme, null, "{\"title\":\"a\"}"); // no key
    Http.post(cluster.node(0), "/v1/tools/no-such-tool", acme, "op-3", "{}"); // unknown tool
    Reply quota = Http.createNote(cluster.node(0), acme, "op-4", "{\"title\":\"b\"}");
    assertThat(quota.status()).isEqualTo(409); // the quota's recorded business error

    Metrics metrics = scrape(null);

    assertThat(metrics.count("toolledger_requests_total", of("create-note", "conflict")))
        .isEqualTo(1);
    assertThat(metrics.count("toolledger_requests_total", of("create-note", "rejected")))
        .isEqualTo(2);
    assertThat(metrics.count("toolledger_requests_total", of("_unknown", "rejected"))).isEqualTo(1);
    assertThat(metrics.count("toolledger_requests_total", of("create-note", "executed")))
        .isEqualTo(2);
    assertThat(metrics.count("toolledger_effects_total", Map.of("tool", "create-note")))
        .isEqualTo(1);
    assertThat(metrics.toString()).doesNotContain("no-such-tool");
  }

  @Test
  void gaugesShowUnknownOperationsAndTheOutcomesOfAnExternalTool() {
    start(UnaryOperator.identity());
    String acme = cluster.token("acme");
    mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
    Http.post(cluster.node(0), "/v1/tools/send-mail", acme, "m-1", "{\"to\":\"a@example.com\"}");
    Http.post(cluster.node(0), "/v1/tools/send-mail", acme, "m-1", "{\"to\":\"a@example.com\"}");

    Metrics metrics = scrape(null);

    assertThat(metrics.value("toolledger_operations_unknown", Map.of())).hasValue(1);
    assertThat(metrics.value("toolledger_operations_stale_in_progress", Map.of())).hasValue(0);
    assertThat(metrics.value("toolledger_outbox_pending", Map.of())).hasValue(0);
    assertThat(metrics.value("toolledger_outbox_dead", Map.of())).hasValue(0);
    assertThat(metrics.count("toolledger_requests_total", of("send-mail", "unknown"))).isEqualTo(2);
    assertThat(metrics.count("toolledger_effects_total", Map.of("tool", "send-mail"))).isZero();
  }

  @Test
  void poolHttpThreadsAndJvmAreMeasuredToo() {
    start(UnaryOperator.identity());

    Metrics metrics = scrape(null);

    assertThat(metrics.has("hikaricp_connections_active")).isTrue();
    assertThat(metrics.has("jetty_threads_busy")).isTrue();
    assertThat(metrics.has("jvm_memory_used_bytes")).isTrue();
    assertThat(metrics.has("process_uptime_seconds")).isTrue();
  }

  @Test
  void loopbackClientsScrapeWithoutATokenByDefault() {
    start(UnaryOperator.identity());

    assertThat(Http.get(cluster.node(0), "/metrics", null).status()).isEqualTo(200);
  }

  @Test
  void operatorAccessWantsTheOperatorTokenAndNotATenantsToken() {
    start(
        builder ->
            builder
                .metricsAccess(MetricsAccess.OPERATOR)
                .operators(OperatorAuthenticator.sharedSecret(OPERATOR_TOKEN)));
    String tenantToken = cluster.token("acme");

    Reply anonymous = Http.get(cluster.node(0), "/metrics", null);
    Reply tenant = Http.get(cluster.node(0), "/metrics", tenantToken);

    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(anonymous.problemType()).isEqualTo("https://toolledger.dev/problems/unauthorized");
    assertThat(tenant.status()).isEqualTo(401);
    assertThat(scrape(OPERATOR_TOKEN).has("toolledger_operations_unknown")).isTrue();
  }

  @Test
  void metricsTurnedOffAreNotServed() {
    start(builder -> builder.metricsAccess(MetricsAccess.OFF));

    assertThat(Http.get(cluster.node(0), "/metrics", null).status()).isEqualTo(401);
    assertThat(Http.get(cluster.node(0), "/metrics", cluster.token("acme")).status())
        .isEqualTo(404);
  }

  @Test
  void everyResponseCarriesARequestIdTheCallersOrANewOne() {
    start(UnaryOperator.identity());

    Reply given = Http.get(cluster.node(0), "/health", null);
    Reply echoed =
        Http.send(
            java.net.http.HttpRequest.newBuilder(cluster.node(0).resolve("/health"))
                .header("X-Request-Id", "trace-42.a_b:c")
                .build());
    Reply unsafe =
        Http.send(
            java.net.http.HttpRequest.newBuilder(cluster.node(0).resolve("/health"))
                .header("X-Request-Id", "has spaces and \"quotes\"")
                .build());

    assertThat(given.header("X-Request-Id")).matches("[0-9a-f]{16}");
    assertThat(echoed.header("X-Request-Id")).isEqualTo("trace-42.a_b:c");
    assertThat(unsafe.header("X-Request-Id")).matches("[0-9a-f]{16}");
  }
}
