package dev.toolledger.clientmcp;

import static dev.toolledger.clientmcp.ClassificationParityTest.summary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.client.ActionTransport;
import dev.toolledger.client.HttpSide;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same situations on one real node, through the HTTP transport and through the MCP transport:
 * each attempt ends the same way, and an outcome recorded through one face is replayed through the
 * other with the same body.
 */
class RealServerParityTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void eachSituationEndsAlikeOverHttpAndMcpAndOutcomesReplayAcrossFaces() throws Exception {
    try (LedgerNode node =
            LedgerNode.start(
                dir,
                app ->
                    LedgerNode.smallRequests(
                        app.plugin(NotesPlugin.serving(NotesTool.withQuota(2)))));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(node.mcpUri(), node.token("acme"), TIMEOUT)) {
      ActionTransport http = HttpSide.transport(node.uri(), node.token("acme"));
      OperationKey viaHttp = newKey();
      OperationKey viaMcp = newKey();

      AttemptResult<Outcome> createdOverHttp = http.send(viaHttp, note("a"), TIMEOUT);
      AttemptResult<Outcome> createdOverMcp = mcp.send(viaMcp, note("b"), TIMEOUT);
      assertThat(summary(createdOverHttp))
          .isEqualTo(summary(createdOverMcp))
          .isEqualTo("completed 201");

      AttemptResult<Outcome> replayOverMcp = mcp.send(viaHttp, note("a"), TIMEOUT);
      AttemptResult<Outcome> replayOverHttp = http.send(viaMcp, note("b"), TIMEOUT);
      assertThat(summary(replayOverMcp))
          .isEqualTo(summary(replayOverHttp))
          .isEqualTo("completed 201 replayed");
      assertThat(body(replayOverMcp)).isEqualTo(body(createdOverHttp));
      assertThat(body(replayOverHttp)).isEqualTo(body(createdOverMcp));

      same(http, mcp, viaHttp, viaMcp, note("other"), "rejected idempotency-key-reused 422");
      same(http, mcp, note(""), "rejected invalid-parameters 400");
      same(
          http,
          mcp,
          Action.of("w", "s", "create-nte", Json.parse("{\"title\":\"typo\"}")),
          "rejected unknown-tool 404");
      same(
          http,
          mcp,
          note("y".repeat(2 * LedgerNode.MAX_REQUEST_BYTES)),
          "rejected payload-too-large 413");
      same(http, mcp, note("over quota"), "completed 409");

      OperationKey fencedForHttp = fenced(node);
      OperationKey fencedForMcp = fenced(node);
      same(
          http, mcp, fencedForHttp, fencedForMcp, note("c"), "rejected operation-not-executed 409");

      ActionTransport forgedHttp = HttpSide.transport(node.uri(), "tl_000000000000_forged");
      try (McpActionTransport forgedMcp =
          McpActionTransport.streamableHttp(node.mcpUri(), "tl_000000000000_forged", TIMEOUT)) {
        same(forgedHttp, forgedMcp, note("d"), "rejected unauthorized 401");
      }

      for (OperationKey key : new OperationKey[] {viaHttp, viaMcp, fencedForHttp, newKey()}) {
        LookupResult overHttp = done(http.lookup(key, TIMEOUT));
        LookupResult overMcp = done(mcp.lookup(key, TIMEOUT));
        assertThat(overMcp).as("lookup %s", key).usingRecursiveComparison().isEqualTo(overHttp);
      }
      assertThat(node.notes()).isEqualTo(2);
    }
  }

  @Test
  void unreachableServerIsRetriedAlikeOverHttpAndMcp() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    ActionTransport http = HttpSide.transport(URI.create("http://127.0.0.1:" + closedPort), "tl_x");
    try (McpActionTransport mcp =
        McpActionTransport.streamableHttp(
            URI.create("http://127.0.0.1:" + closedPort + "/mcp"), "tl_x", TIMEOUT)) {
      same(http, mcp, note("e"), "retry");
      assertThat(http.lookup(newKey(), TIMEOUT)).isInstanceOf(AttemptResult.Retry.class);
      assertThat(mcp.lookup(newKey(), TIMEOUT)).isInstanceOf(AttemptResult.Retry.class);
    }
  }

  private static void same(
      ActionTransport http, ActionTransport mcp, Action action, String expected) {
    same(http, mcp, newKey(), newKey(), action, expected);
  }

  private static void same(
      ActionTransport http,
      ActionTransport mcp,
      OperationKey httpKey,
      OperationKey mcpKey,
      Action action,
      String expected) {
    assertThat(summary(http.send(httpKey, action, TIMEOUT))).as("HTTP").isEqualTo(expected);
    assertThat(summary(mcp.send(mcpKey, action, TIMEOUT))).as("MCP").isEqualTo(expected);
  }

  private static OperationKey fenced(LedgerNode node) {
    OperationKey key = newKey();
    node.app.engine().resolve(TenantId.of("acme"), key, new Resolution.Inquiry(), "test");
    return key;
  }

  private static Action note(String title) {
    return Action.of("w", "s", "create-note", Json.object().put("title", title));
  }

  private static OperationKey newKey() {
    return OperationKey.of("parity-" + UUID.randomUUID());
  }

  private static Object body(AttemptResult<Outcome> result) {
    return ((Outcome.Completed) ((AttemptResult.Done<Outcome>) result).value()).body();
  }

  private static <T> T done(AttemptResult<T> result) {
    assertThat(result).isInstanceOf(AttemptResult.Done.class);
    return ((AttemptResult.Done<T>) result).value();
  }
}
