package dev.toolledger.server.mcp;

import static dev.toolledger.server.mcp.McpToolsOverHttpTest.createNote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the MCP endpoint refuses, and how. */
class McpHardeningTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir Path dir;

  @Test
  void foreignOriginIsRefusedBeforeAnythingRunsOnMcpApiAndConsole() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String token = fixture.token("acme");
      Map<String, String> evil = Map.of("Origin", "http://evil.example:" + fixture.uri().getPort());

      HttpResponse<String> mcp =
          RawMcp.send(
              fixture.mcpUri(),
              token,
              null,
              RawMcp.INITIALIZE.getBytes(StandardCharsets.UTF_8),
              evil);
      HttpResponse<String> api =
          HTTP.send(
              HttpRequest.newBuilder(fixture.uri().resolve("/v1/tools/create-note"))
                  .header("Authorization", "Bearer " + token)
                  .header("Idempotency-Key", "k-origin")
                  .header("Content-Type", "application/json")
                  .header("Origin", "http://evil.example")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"t\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> console =
          HTTP.send(
              HttpRequest.newBuilder(fixture.uri().resolve("/console/api/operations/x/resolve"))
                  .header("Origin", "null")
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> own =
          RawMcp.send(
              fixture.mcpUri(),
              token,
              null,
              RawMcp.INITIALIZE.getBytes(StandardCharsets.UTF_8),
              Map.of("Origin", "http://localhost:" + fixture.uri().getPort()));
      HttpResponse<String> noOrigin = RawMcp.initialize(fixture.mcpUri(), token);

      for (HttpResponse<String> refused : List.of(mcp, api, console)) {
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.headers().firstValue("Content-Type"))
            .hasValue("application/problem+json");
        assertThat(Json.parse(refused.body()).path("type").asText())
            .isEqualTo(ProblemType.FORBIDDEN_ORIGIN.uri().toString());
      }
      assertThat(mcp.headers().firstValue("Mcp-Session-Id")).isEmpty();
      assertThat(own.statusCode()).isEqualTo(200);
      assertThat(noOrigin.statusCode()).isEqualTo(200);
      assertThat(fixture.notes()).isZero();
    }
  }

  @Test
  void configuredOriginIsAllowedAndOthersAreNot() throws Exception {
    try (McpFixture fixture =
        McpFixture.start(
            dir,
            node ->
                node.serverConfig(
                    ServerConfig.builder()
                        .port(0)
                        .shutdownGrace(Duration.ZERO)
                        .allowedOrigin("https://Console.Example.com:443")
                        .build()))) {
      String token = fixture.token("acme");
      byte[] init = RawMcp.INITIALIZE.getBytes(StandardCharsets.UTF_8);
      assertThat(
              RawMcp.send(
                      fixture.mcpUri(),
                      token,
                      null,
                      init,
                      Map.of("Origin", "https://console.example.com"))
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              RawMcp.send(
                      fixture.mcpUri(),
                      token,
                      null,
                      init,
                      Map.of("Origin", "http://127.0.0.1:" + fixture.uri().getPort()))
                  .statusCode())
          .isEqualTo(403);
    }
  }

  @Test
  void sessionPresentedWithAnotherTenantsTokenIsAnsweredLikeAnUnknownOne() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String acme = fixture.token("acme");
      String globex = fixture.token("globex");
      RawMcp session = RawMcp.open(fixture.mcpUri(), acme);
      byte[] list = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}".getBytes();

      HttpResponse<String> foreign = session.postAs(globex, list);
      HttpResponse<String> unknown =
          RawMcp.send(fixture.mcpUri(), globex, "no-such-session", list, Map.of());
      HttpResponse<String> own = session.postBytes(list);

      assertThat(foreign.statusCode()).isEqualTo(404);
      assertThat(foreign.body()).isEqualTo(unknown.body());
      assertThat(Json.parse(foreign.body()).path("type").asText())
          .isEqualTo(ProblemType.MCP_SESSION_NOT_FOUND.uri().toString());
      assertThat(own.statusCode()).isEqualTo(200);

      // The official SDK client: a session opened with acme's token, then globex's token.
      AtomicReference<String> current = new AtomicReference<>(acme);
      McpSyncClient client = sdkClient(fixture.uri(), current);
      try {
        client.initialize();
        assertThat(client.listTools().tools()).isNotEmpty();
        current.set(globex);
        assertThatThrownBy(() -> client.callTool(createNote("op-foreign", "x")))
            .hasMessageContaining("session");
      } finally {
        current.set(acme);
        client.closeGracefully();
      }
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  @Test
  void idleSessionsExpireAndSessionsPerTokenAreCapped() throws Exception {
    MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    try (McpFixture fixture =
        McpFixture.start(
            dir,
            node ->
                node.mcp(
                    McpOptions.builder()
                        .sessionClock(clock)
                        .sessionIdleTimeout(Duration.ofMinutes(10))
                        .maxSessionsPerToken(2)
                        .build()))) {
      String token = fixture.token("acme");
      RawMcp first = RawMcp.open(fixture.mcpUri(), token);
      RawMcp second = RawMcp.open(fixture.mcpUri(), token);

      HttpResponse<String> third = RawMcp.initialize(fixture.mcpUri(), token);
      assertThat(third.statusCode()).isEqualTo(429);
      assertThat(Json.parse(third.body()).path("type").asText())
          .isEqualTo(ProblemType.MCP_SESSION_LIMIT.uri().toString());
      assertThat(Json.parse(third.body()).path("detail").asText()).contains("2 open MCP sessions");
      // Another token has its own allowance.
      assertThat(RawMcp.initialize(fixture.mcpUri(), fixture.token("acme")).statusCode())
          .isEqualTo(200);

      assertThat(first.delete().statusCode()).isEqualTo(200);
      assertThat(first.post(ping()).statusCode()).isEqualTo(404);
      RawMcp fresh = RawMcp.open(fixture.mcpUri(), token);

      clock.advance(Duration.ofMinutes(9));
      assertThat(fresh.post(ping()).statusCode()).isEqualTo(200);
      clock.advance(Duration.ofMinutes(9));
      // second idled for 18 minutes; fresh was used 9 minutes ago.
      HttpResponse<String> idle = second.post(ping());
      assertThat(idle.statusCode()).isEqualTo(404);
      assertThat(Json.parse(idle.body()).path("type").asText())
          .isEqualTo(ProblemType.MCP_SESSION_NOT_FOUND.uri().toString());
      assertThat(fresh.post(ping()).statusCode()).isEqualTo(200);
      assertThat(RawMcp.initialize(fixture.mcpUri(), token).statusCode()).isEqualTo(200);
    }
  }

  private static String ping() {
    return "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}";
  }

  @Test
  void everyMalformedMessageGetsOneStableJsonRpcErrorWithoutInternals() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String token = fixture.token("acme");
      RawMcp session = RawMcp.open(fixture.mcpUri(), token);
      record Case(String body, int code, String id) {}
      List<Case> cases =
          List.of(
              new Case("{\"jsonrpc\":", -32700, null),
              new Case("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", -32700, null),
              new Case("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600, null),
              new Case("\"ping\"", -32600, null),
              new Case("{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}", -32600, "3"),
              new Case("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", -32600, null),
              new Case("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":42}", -32600, "4"),
              new Case("{\"jsonrpc\":\"2.0\",\"id\":5}", -32600, "5"),
              new Case(
                  "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":7}",
                  -32602,
                  "6"),
              new Case(
                  "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":"
                      + "\"create-note\",\"arguments\":\"title\"}}",
                  -32602,
                  "8"),
              new Case(
                  "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
                      + "[\"create-note\"],\"arguments\":{}}}",
                  -32602,
                  "9"),
              new Case(
                  "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"tools/list\",\"params\":"
                      + "{\"cursor\":{\"x\":1}}}",
                  -32602,
                  "\"t\""),
              new Case(
                  "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"initialize\",\"params\":"
                      + "{\"protocolVersion\":20250618,\"capabilities\":{},\"clientInfo\":{}}}",
                  -32602,
                  "10"));
      for (Case c : cases) {
        HttpResponse<String> answer = session.post(c.body());
        assertThat(answer.statusCode()).as(c.body()).isEqualTo(400);
        JsonNode json = Json.parse(answer.body());
        assertThat(json.path("jsonrpc").asText()).as(c.body()).isEqualTo("2.0");
        assertThat(json.path("error").path("code").asInt()).as(c.body()).isEqualTo(c.code());
        assertThat(json.path("id").toString()).as(c.body()).isEqualTo(String.valueOf(c.id()));
        assertThat(json.path("error").path("data").path("type").asText())
            .startsWith(ProblemType.BASE);
        assertNoInternals(answer.body());
      }
      // Wrong headers: a problem document before JSON-RPC starts.
      HttpResponse<String> badVersion =
          RawMcp.send(
              fixture.mcpUri(),
              token,
              session.sessionId(),
              ping().getBytes(),
              Map.of("MCP-Protocol-Version", "1999-01-01"));
      HttpResponse<String> badAccept =
          RawMcp.send(
              fixture.mcpUri(),
              token,
              session.sessionId(),
              ping().getBytes(),
              Map.of("Accept", "text/html"));
      HttpResponse<String> noSession =
          RawMcp.send(fixture.mcpUri(), token, null, ping().getBytes(), Map.of());
      for (HttpResponse<String> refused : List.of(badVersion, badAccept, noSession)) {
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(Json.parse(refused.body()).path("type").asText())
            .isEqualTo(ProblemType.BAD_REQUEST.uri().toString());
        assertNoInternals(refused.body());
      }
      assertThat(session.post(ping()).statusCode()).isEqualTo(200);
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  @Test
  void invalidUtf8IsRefusedAndNothingIsStored() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp session = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
      byte[] head =
          ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                  + "\"create-note\",\"_meta\":{\""
                  + McpConventions.OPERATION_KEY
                  + "\":\"op-utf8\"},\"arguments\":{\"title\":\"caf")
              .getBytes(StandardCharsets.UTF_8);
      byte[] tail = "\"}}}".getBytes(StandardCharsets.UTF_8);
      byte[] body = new byte[head.length + 1 + tail.length];
      System.arraycopy(head, 0, body, 0, head.length);
      body[head.length] = (byte) 0xE9; // Latin-1 'é', not UTF-8
      System.arraycopy(tail, 0, body, head.length + 1, tail.length);

      HttpResponse<String> answer = session.postBytes(body);

      assertThat(answer.statusCode()).isEqualTo(400);
      JsonNode json = Json.parse(answer.body());
      assertThat(json.path("error").path("code").asInt()).isEqualTo(-32700);
      assertThat(json.path("error").path("data").path("type").asText())
          .isEqualTo(ProblemType.MALFORMED_JSON.uri().toString());
      assertThat(fixture.notes()).isZero();
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  @Test
  void narrowTokenCannotTellUnknownToolsFromForbiddenOnes() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String narrow =
          fixture.app.tokens().issue(TenantId.of("acme"), Scopes.of("read"), "test").token();
      RawMcp session = RawMcp.open(fixture.mcpUri(), narrow);

      String existing = session.post(call("create-note")).body();
      String missing = session.post(call("no-such-tool")).body();

      JsonNode existingResult = Json.parse(sseData(existing));
      JsonNode missingResult = Json.parse(sseData(missing));
      assertThat(existingResult.path("result").path("isError").asBoolean()).isTrue();
      assertThat(existingResult.path("result").path("structuredContent").path("type").asText())
          .isEqualTo(ProblemType.FORBIDDEN.uri().toString());
      // Identical but for the name the caller sent itself.
      assertThat(missingResult.toString().replace("no-such-tool", "create-note"))
          .isEqualTo(existingResult.toString());

      // A token that may call every name learns that a name is no tool's, as over HTTP.
      RawMcp wide = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
      JsonNode unknown = Json.parse(sseData(wide.post(call("no-such-tool")).body()));
      assertThat(unknown.path("error").path("code").asInt()).isEqualTo(-32602);
      assertThat(unknown.path("error").path("data").path("type").asText())
          .isEqualTo(ProblemType.UNKNOWN_TOOL.uri().toString());
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  private static String call(String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\""
        + tool
        + "\",\"arguments\":{\"title\":\"t\"},\"_meta\":{\""
        + McpConventions.OPERATION_KEY
        + "\":\"op-1\"}}}";
  }

  /** The JSON-RPC message of an answer sent as JSON or as one SSE event. */
  static String sseData(String body) {
    if (body.startsWith("{")) {
      return body;
    }
    return body.lines()
        .filter(line -> line.startsWith("data:"))
        .map(line -> line.substring(5).strip())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no JSON-RPC message in: " + body));
  }

  static void assertNoInternals(String body) {
    assertThat(body)
        .doesNotContain("stackTrace")
        .doesNotContain("java.")
        .doesNotContain("Exception")
        .doesNotContain("io.modelcontextprotocol")
        .doesNotContain("com.fasterxml")
        .doesNotContain(System.getProperty("java.version"));
  }

  private static McpSyncClient sdkClient(URI base, AtomicReference<String> token) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(base.toString())
            .endpoint(McpConventions.PATH)
            .addHttpRequestCustomizer(
                (request, method, endpoint, body, context) -> {
                  request.header("Authorization", "Bearer " + token.get());
                })
            .build();
    return McpClient.sync(transport)
        .requestTimeout(Duration.ofSeconds(30))
        .initializationTimeout(Duration.ofSeconds(30))
        .build();
  }
}
