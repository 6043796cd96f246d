package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.mcp.McpConventions;
import dev.toolledger.server.observe.LedgerMetrics;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two kinds of event that the metrics did not count: MCP calls of no tool, and later settlements.
 */
class RecoveryAndMcpMetricsTest {
  private static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  @Test
  void mcpCallsOfUnknownToolsAreCountedAsRejected() throws Exception {
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .plugin(NotesPlugin.serving(NotesTool.unlimited()))
                .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
                .start()) {
      String token = app.tokens().issue(ACME, "test").token();
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder(app.uri().toString())
                      .endpoint(McpConventions.PATH)
                      .addHttpRequestCustomizer(
                          (request, method, endpoint, body, context) ->
                              request.header("Authorization", "Bearer " + token))
                      .build())
              .build();
      try {
        client.initialize();
        for (int i = 0; i < 2; i++) {
          try {
            client.callTool(
                CallToolRequest.builder("no-such-tool-" + i)
                    .arguments(Map.of())
                    .meta(Map.of(McpConventions.OPERATION_KEY, "op-" + i))
                    .build());
          } catch (RuntimeException expected) {
            // A JSON-RPC error: no tool has that name.
          }
        }
      } finally {
        client.closeGracefully();
      }

      Metrics metrics = new Metrics(app.observability().scrape());
      assertThat(
              metrics.count(
                  "toolledger_requests_total",
                  Map.of("tool", LedgerMetrics.UNKNOWN_TOOL, "outcome", "rejected")))
          .isEqualTo(2.0);
      assertThat(metrics.toString()).doesNotContain("no-such-tool");
    }
  }

  @Test
  void settlementsByTheRecoveryWorkerAreCounted() throws Exception {
    MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    MailTool mail = new MailTool();
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .engineConfig(EngineConfig.builder().clock(clock).build())
                .clock(clock)
                .tool(mail)
                .relayEnabled(false)
                .sweepInterval(Duration.ZERO)
                .recoveryInterval(Duration.ofMillis(50))
                .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
                .start()) {
      // A claim of a node that died: its lease runs out, and this node's recovery settles it.
      ClaimResult claimed =
          store.inTransaction(
              tx ->
                  tx.claimLeased(
                      new NewOperation(
                          ACME,
                          OperationKey.of("op-orphan"),
                          new OperationIntent(
                              "send-mail",
                              "1",
                              Fingerprinter.fingerprint(
                                  "send-mail", "1", Json.parse("{\"to\":\"a\"}"))),
                          clock.instant()),
                      new LeaseClaim("node-9", Duration.ofMillis(1), "{\"to\":\"a\"}"),
                      Duration.ZERO));
      assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
      // Leases run on the database's clock: this one is over within a millisecond.

      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      double settled = 0;
      while (settled == 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
        Metrics metrics = new Metrics(app.observability().scrape());
        settled = metrics.count("toolledger_recovery_settlements_total", Map.of());
      }
      assertThat(settled).isEqualTo(1.0);
      assertThat(app.engine().lookup(ACME, OperationKey.of("op-orphan")).orElseThrow().state())
          .isNotEqualTo(dev.toolledger.protocol.OperationState.IN_PROGRESS);
    }
  }
}
