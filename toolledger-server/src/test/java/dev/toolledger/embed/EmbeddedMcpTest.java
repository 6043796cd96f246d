package dev.toolledger.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.examples.notes.NotesPlugin;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MCP settings of the embedding builder, seen by real MCP clients over HTTP and stdio. */
class EmbeddedMcpTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  private ToolLedger.Builder notes() {
    return ToolLedger.builder(dir.resolve("ledger.db").toString()).plugin(new NotesPlugin());
  }

  private static McpSyncClient client(URI uri, String token) {
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder(uri.toString())
                    .endpoint("/mcp")
                    .addHttpRequestCustomizer(
                        (request, method, endpoint, body, context) ->
                            request.header("Authorization", "Bearer " + token))
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  private static CallToolResult unkeyedCreateNote(ToolLedger ledger) {
    try (McpSyncClient client =
        client(ledger.httpUri().orElseThrow(), ledger.issueToken(ACME, "agent"))) {
      return client.callTool(
          CallToolRequest.builder("create-note").arguments(Map.of("title", "x")).build());
    }
  }

  @Test
  void aToolAllowedUnkeyedRunsAnMcpCallThatBringsNoKey() {
    try (ToolLedger ledger = notes().http("127.0.0.1", 0).allowUnkeyed("create-note").build()) {
      CallToolResult result = unkeyedCreateNote(ledger);

      assertThat(result.isError()).isFalse();
      assertThat(result.meta()).containsKey("dev.toolledger/operation-key");
    }
  }

  @Test
  void withoutAllowUnkeyedAnMcpCallThatBringsNoKeyIsRefused() {
    try (ToolLedger ledger = notes().http("127.0.0.1", 0).build()) {
      assertThat(unkeyedCreateNote(ledger).isError()).isTrue();
    }
  }

  @Test
  void allowUnkeyedOfAToolTheLedgerDoesNotServeStopsTheBuild() {
    ToolLedger.Builder builder = notes().http("127.0.0.1", 0).allowUnkeyed("create-nothing");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowUnkeyed")
        .hasMessageContaining("create-nothing");
  }

  @Test
  void badMcpSettingsAreRejectedNamingTheOption() {
    assertThatThrownBy(() -> notes().allowUnkeyed(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowUnkeyed");
    assertThatThrownBy(() -> notes().allowUnkeyed("get-operation"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowUnkeyed");
    assertThatThrownBy(() -> notes().mcpDrainTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcpDrainTimeout");
    assertThatThrownBy(() -> notes().mcpSessionIdleTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcpSessionIdleTimeout");
    assertThatThrownBy(() -> notes().mcpMaxSessionsPerToken(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcpMaxSessionsPerToken");
    assertThatThrownBy(() -> notes().mcpEngineThreads(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcpEngineThreads");
  }

  private static HttpResponse<String> initialize(HttpClient http, URI uri, String token)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri.resolve("/mcp"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                        + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void mcpMaxSessionsPerTokenRefusesOneSessionTooMany() throws Exception {
    try (ToolLedger ledger = notes().http("127.0.0.1", 0).mcpMaxSessionsPerToken(1).build()) {
      URI uri = ledger.httpUri().orElseThrow();
      String token = ledger.issueToken(ACME, "agent");
      HttpClient http = HttpClient.newHttpClient();

      HttpResponse<String> first = initialize(http, uri, token);
      HttpResponse<String> second = initialize(http, uri, token);

      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(second.statusCode()).isEqualTo(429);
      assertThat(second.body()).contains("mcp-session-limit");
    }
  }

  private static HttpResponse<String> ping(HttpClient http, URI uri, String token, String session)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri.resolve("/mcp"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-06-18")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void mcpSessionIdleTimeoutForgetsASessionUnusedThatLong() throws Exception {
    // Sessions idle by the system clock, which a test cannot move: a short timeout, a longer nap.
    try (ToolLedger ledger =
        notes().http("127.0.0.1", 0).mcpSessionIdleTimeout(Duration.ofMillis(300)).build()) {
      URI uri = ledger.httpUri().orElseThrow();
      String token = ledger.issueToken(ACME, "agent");
      HttpClient http = HttpClient.newHttpClient();
      String session =
          initialize(http, uri, token).headers().firstValue("Mcp-Session-Id").orElseThrow();

      HttpResponse<String> fresh = ping(http, uri, token, session);
      Thread.sleep(1_000);
      HttpResponse<String> idle = ping(http, uri, token, session);

      assertThat(fresh.statusCode()).isEqualTo(200);
      assertThat(idle.statusCode()).isEqualTo(404);
    }
  }

  /** A tool that holds its call until the test lets it go. */
  static final class HeldTool implements TransactionalTool {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("held", "1")
          .description("Answers once the test lets it go.")
          .inputSchema(JSON.createObjectNode().put("type", "object"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
      entered.countDown();
      release.await(60, TimeUnit.SECONDS);
      return ToolResponse.of(200, JSON.createObjectNode().put("held", true));
    }
  }

  @Test
  void aZeroMcpDrainTimeoutClosesWithoutWaitingForACallStillRunning() throws Exception {
    HeldTool held = new HeldTool();
    ToolLedger ledger =
        notes().tool(held).http("127.0.0.1", 0).mcpDrainTimeout(Duration.ZERO).build();
    McpSyncClient client = client(ledger.httpUri().orElseThrow(), ledger.issueToken(ACME, "agent"));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      threads.submit(
          () ->
              client.callTool(
                  CallToolRequest.builder("held")
                      .arguments(Map.of())
                      .meta(Map.of("dev.toolledger/operation-key", "h-1"))
                      .build()));
      assertThat(held.entered.await(30, TimeUnit.SECONDS)).isTrue();

      Future<?> closing = threads.submit(ledger::close);

      // The HTTP drain gives the held call's request the shutdown grace (10 s) to finish; the MCP
      // drain would then wait for the call another 30 s by default, and waits for nothing here.
      closing.get(25, TimeUnit.SECONDS);
      assertThat(held.release.getCount()).isEqualTo(1);
    } finally {
      held.release.countDown();
      threads.shutdownNow();
      client.closeGracefully();
    }
  }

  @Test
  void oneMcpEngineThreadRunsOneCallAtATime() throws Exception {
    HeldTool held = new HeldTool();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (ToolLedger ledger = notes().tool(held).http("127.0.0.1", 0).mcpEngineThreads(1).build();
        McpSyncClient first =
            client(ledger.httpUri().orElseThrow(), ledger.issueToken(ACME, "first"));
        McpSyncClient second =
            client(ledger.httpUri().orElseThrow(), ledger.issueToken(ACME, "second"))) {
      Future<CallToolResult> heldCall =
          threads.submit(
              () ->
                  first.callTool(
                      CallToolRequest.builder("held")
                          .arguments(Map.of())
                          .meta(Map.of("dev.toolledger/operation-key", "h-1"))
                          .build()));
      assertThat(held.entered.await(30, TimeUnit.SECONDS)).isTrue();
      Future<CallToolResult> queued =
          threads.submit(
              () ->
                  second.callTool(
                      CallToolRequest.builder("get-operation")
                          .arguments(Map.of("key", "n-1"))
                          .build()));

      // A lookup only reads, so the held call's open transaction does not block it: with the
      // default sixteen threads it would be answered at once.
      assertThatThrownBy(() -> queued.get(2, TimeUnit.SECONDS))
          .isInstanceOf(TimeoutException.class);
      held.release.countDown();

      assertThat(heldCall.get(30, TimeUnit.SECONDS).isError()).isFalse();
      assertThat(queued.get(30, TimeUnit.SECONDS)).isNotNull();
    } finally {
      held.release.countDown();
      threads.shutdownNow();
    }
  }

  @Test
  void serveStdioRunsAKeyedCallAsTheTenantAndReplaysItsRetry() throws Exception {
    PipedOutputStream toServer = new PipedOutputStream();
    PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
    PipedInputStream fromServer = new PipedInputStream(1 << 16);
    OutputStream serverOut = new PipedOutputStream(fromServer);
    BufferedReader replies =
        new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8));
    String call =
        "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"create-note\",\"arguments\":{\"title\":\"from stdio\"},"
            + "\"_meta\":{\"dev.toolledger/operation-key\":\"s-1\"}}}";

    try (StdioSession session = notes().serveStdio(ACME, serverIn, serverOut)) {
      send(
          toServer,
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
              + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
      assertThat(reply(replies, 1).path("result").path("serverInfo").isObject()).isTrue();
      send(toServer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      send(toServer, call.formatted(2));
      JsonNode first = reply(replies, 2).path("result");
      send(toServer, call.formatted(3));
      JsonNode retry = reply(replies, 3).path("result");
      toServer.close();
      session.awaitEndOfInput();

      assertThat(first.path("isError").asBoolean()).isFalse();
      assertThat(retry.path("isError").asBoolean()).isFalse();
      assertThat(retry.path("structuredContent")).isEqualTo(first.path("structuredContent"));
      assertThat(first.path("_meta").path("dev.toolledger/replayed").asBoolean()).isFalse();
      assertThat(retry.path("_meta").path("dev.toolledger/replayed").asBoolean()).isTrue();
    }
    try (ToolLedger ledger = notes().build()) {
      CallResult done =
          ledger.call(ACME, "s-1", "create-note", JSON.readTree("{\"title\":\"from stdio\"}"));
      assertThat(done).isInstanceOf(CallResult.Done.class);
      assertThat(((CallResult.Done) done).replayed()).isTrue();
    }
  }

  @Test
  void serveStdioWithMcpTurnedOffIsRefused() {
    ToolLedger.Builder builder = notes().mcpEnabled(false);

    assertThatThrownBy(
            () -> builder.serveStdio(ACME, new PipedInputStream(), OutputStream.nullOutputStream()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("MCP is turned off");
  }

  private static void send(OutputStream out, String message) throws Exception {
    out.write((message + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** Reads the server's lines until the response to {@code id}. */
  private static JsonNode reply(BufferedReader replies, int id) throws Exception {
    while (true) {
      String line = replies.readLine();
      assertThat(line).as("the server's answer to request %d", id).isNotNull();
      JsonNode message = JSON.readTree(line);
      if (message.path("id").asInt(-1) == id) {
        return message;
      }
    }
  }
}
