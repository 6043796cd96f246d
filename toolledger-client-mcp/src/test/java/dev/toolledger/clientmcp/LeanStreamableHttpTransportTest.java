package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.server.mcp.McpOptions;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import dev.toolledger.testkit.LossyProxy;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.InitializeResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpTransportException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK's sync client over {@link LeanStreamableHttpTransport} against a real ToolLedger node
 * over real sockets: the whole life of a session, the answers the server gives, and the failures
 * the transport must surface rather than hide.
 */
class LeanStreamableHttpTransportTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void initializeListCallAndReplayRunOnOneSessionWithNoGetStream() throws Exception {
    Wire wire = new Wire();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      McpSyncClient client = client(proxy.uri().resolve("/mcp"), node.token("acme"));
      try {
        InitializeResult init = client.initialize();
        assertThat(init.protocolVersion()).isNotBlank();
        List<Tool> tools = client.listTools().tools();
        assertThat(tools).extracting(Tool::name).contains("create-note", "get-operation");

        String key = "lean-" + UUID.randomUUID();
        CallToolResult first = client.callTool(create(key, "first"));
        CallToolResult again = client.callTool(create(key, "first"));

        assertThat(first.isError()).isFalse();
        assertThat(first.meta()).containsEntry(McpActionTransport.REPLAYED, false);
        assertThat(again.isError()).isFalse();
        assertThat(again.meta()).containsEntry(McpActionTransport.REPLAYED, true);
        assertThat(again.structuredContent()).isEqualTo(first.structuredContent());
        assertThat(node.notes()).isEqualTo(1);
      } finally {
        client.closeGracefully();
      }
      // Only POSTs for the session's messages (no standing GET stream), then the DELETE.
      assertThat(wire.methods)
          .containsExactly(
              "POST 200", "POST 202", "POST 200", "POST 200", "POST 200", "DELETE 200");
    }
  }

  @Test
  void jsonRpcErrorIsAnMcpErrorAndAToolErrorIsAResult() throws Exception {
    try (LedgerNode node = LedgerNode.start(dir)) {
      McpSyncClient client = client(node.mcpUri(), node.token("acme"));
      try {
        assertThatThrownBy(
                () ->
                    client.callTool(
                        CallToolRequest.builder("delete-everything")
                            .arguments(Map.of())
                            .meta(Map.of(McpActionTransport.OPERATION_KEY, "lean-unknown-tool"))
                            .build()))
            .isInstanceOf(McpError.class)
            .satisfies(e -> assertThat(((McpError) e).getJsonRpcError().code()).isEqualTo(-32602));

        CallToolResult invalid =
            client.callTool(
                CallToolRequest.builder("create-note")
                    .arguments(Map.of("title", 42))
                    .meta(Map.of(McpActionTransport.OPERATION_KEY, "lean-" + UUID.randomUUID()))
                    .build());
        assertThat(invalid.isError()).isTrue();
        assertThat(invalid.meta()).containsKey(McpActionTransport.PROBLEM_TYPE);

        // The session is still usable after both.
        assertThat(client.callTool(create("lean-" + UUID.randomUUID(), "after")).isError())
            .isFalse();
      } finally {
        client.closeGracefully();
      }
      assertThat(node.notes()).isEqualTo(1);
    }
  }

  @Test
  void lostAnswerFailsTheCallAtOnceAndTheSameKeyThenGetsTheRecordedOutcome() throws Exception {
    McpTraffic traffic = McpTraffic.losing("create-note", DropPolicy.next(1, e -> true));
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic)) {
      McpSyncClient client = client(proxy.uri().resolve("/mcp"), node.token("acme"));
      try {
        String key = "lean-" + UUID.randomUUID();
        long before = System.nanoTime();
        assertThatThrownBy(() -> client.callTool(create(key, "lost")))
            .satisfies(
                e ->
                    assertThat(chain(e))
                        .hasAtLeastOneElementOfType(McpTransportException.class)
                        .hasAtLeastOneElementOfType(java.io.IOException.class));
        assertThat(Duration.ofNanos(System.nanoTime() - before))
            .as("a closed connection is a failure now, not a timeout")
            .isLessThan(TIMEOUT);

        CallToolResult retried = client.callTool(create(key, "lost"));

        assertThat(retried.meta()).containsEntry(McpActionTransport.REPLAYED, true);
        assertThat(traffic.attemptsByKey("create-note")).isEqualTo(Map.of(key, 2L));
        assertThat(node.notes()).isEqualTo(1);
      } finally {
        client.closeGracefully();
      }
    }
  }

  @Test
  void expiredSessionFailsOneCallAndTheSdkReinitializesSoTheNextRunsOnANewSession()
      throws Exception {
    MovableClock clock = MovableClock.at("2026-01-01T00:00:00Z");
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node =
            LedgerNode.start(
                dir,
                app ->
                    app.mcp(
                        McpOptions.builder()
                            .sessionIdleTimeout(Duration.ofMinutes(1))
                            .sessionClock(clock)
                            .build()));
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic)) {
      McpSyncClient client = client(proxy.uri().resolve("/mcp"), node.token("acme"));
      try {
        assertThat(client.callTool(create("lean-" + UUID.randomUUID(), "one")).isError()).isFalse();
        clock.advance(Duration.ofMinutes(2));

        String key = "lean-" + UUID.randomUUID();
        // The call that met the 404 fails. The SDK's client, told of the lost session through the
        // exception handler, closes its session object first, which fails the pending call with
        // "MCP session with server terminated" (as over the SDK's own transport, which calls the
        // handler in the same order), and initializes a new session.
        assertThatThrownBy(() -> client.callTool(create(key, "two")))
            .isInstanceOf(RuntimeException.class);
        CallToolResult next = client.callTool(create(key, "two"));

        assertThat(next.isError()).isFalse();
        assertThat(next.meta()).containsEntry(McpActionTransport.REPLAYED, false);
        assertThat(traffic.methods)
            .as("the SDK re-initialized on the 404, as over its own transport")
            .containsExactly(
                "initialize",
                "notifications/initialized",
                "tools/call",
                "tools/call",
                "initialize",
                "notifications/initialized",
                "tools/call");
        assertThat(traffic.calls.get(1).status()).isEqualTo(404);
        assertThat(node.notes()).isEqualTo(2);
      } finally {
        client.closeGracefully();
      }
    }
  }

  @Test
  void closeDeletesTheSessionSoItNoLongerCountsAgainstTheToken() throws Exception {
    try (LedgerNode node =
        LedgerNode.start(
            dir, app -> app.mcp(McpOptions.builder().maxSessionsPerToken(1).build()))) {
      String token = node.token("acme");
      for (int client = 0; client < 3; client++) {
        McpSyncClient one = client(node.mcpUri(), token);
        assertThat(one.callTool(create("lean-" + UUID.randomUUID(), "n" + client)).isError())
            .as("client %d gets the token's only session", client)
            .isFalse();
        one.closeGracefully();
      }
      // Without the DELETE, the token's one session stays taken and the next initialize fails.
      McpSyncClient kept = client(node.mcpUri(), token);
      kept.initialize();
      McpSyncClient refused = client(node.mcpUri(), token);
      assertThatThrownBy(refused::initialize).isInstanceOf(RuntimeException.class);
      kept.closeGracefully();
      refused.close();
    }
  }

  @Test
  void closedTransportRefusesMessages() throws Exception {
    try (LedgerNode node = LedgerNode.start(dir)) {
      McpSyncClient client = client(node.mcpUri(), node.token("acme"));
      client.initialize();
      client.closeGracefully();
      assertThatThrownBy(() -> client.callTool(create("lean-" + UUID.randomUUID(), "late")))
          .isInstanceOf(RuntimeException.class);
      assertThat(node.notes()).isZero();
    }
  }

  @Test
  void refusedTokenFailsWithTheStatusAndTheServersProblem() throws Exception {
    try (LedgerNode node = LedgerNode.start(dir)) {
      McpSyncClient client = client(node.mcpUri(), "tl_000000000000_forged");
      assertThatThrownBy(client::initialize)
          .hasStackTraceContaining("status code: 401")
          .hasStackTraceContaining("response body: {");
      client.close();
    }
  }

  @Test
  void unusableOptionsAreRefusedNamingThem() {
    assertThatThrownBy(() -> LeanStreamableHttpTransport.builder(URI.create("/mcp")).build())
        .hasMessageContaining("endpoint must be an absolute http");
    assertThatThrownBy(
            () -> LeanStreamableHttpTransport.builder(URI.create("http://h/mcp?x")).build())
        .hasMessageContaining("query");
    assertThatThrownBy(
            () ->
                LeanStreamableHttpTransport.builder(URI.create("http://h/mcp"))
                    .header("Mcp-Session-Id", "x")
                    .build())
        .hasMessageContaining("set by the transport");
    assertThatThrownBy(
            () ->
                LeanStreamableHttpTransport.builder(URI.create("http://h/mcp"))
                    .header("X-A", "a\r\nX-B: b")
                    .build())
        .hasMessageContaining("control characters");
    assertThatThrownBy(
            () ->
                LeanStreamableHttpTransport.builder(URI.create("http://h/mcp"))
                    .readTimeout(Duration.ZERO)
                    .build())
        .hasMessageContaining("readTimeout must be positive");
  }

  private static List<Throwable> chain(Throwable failure) {
    List<Throwable> chain = new java.util.ArrayList<>();
    for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  static McpSyncClient client(URI endpoint, String token) {
    return McpClient.sync(
            LeanStreamableHttpTransport.builder(endpoint)
                .header("Authorization", "Bearer " + token)
                .readTimeout(TIMEOUT)
                .build())
        .requestTimeout(TIMEOUT)
        .initializationTimeout(TIMEOUT)
        .build();
  }

  static CallToolRequest create(String key, String title) {
    return CallToolRequest.builder("create-note")
        .arguments(Map.of("title", title))
        .meta(Map.of(McpActionTransport.OPERATION_KEY, key))
        .build();
  }

  /** Records every exchange's method and status, and loses nothing. */
  static final class Wire implements DropPolicy {
    final List<String> methods = new CopyOnWriteArrayList<>();

    @Override
    public boolean drop(Exchange exchange) {
      methods.add(exchange.method() + " " + exchange.status());
      return false;
    }
  }
}
