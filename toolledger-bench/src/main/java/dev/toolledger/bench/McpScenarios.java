package dev.toolledger.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.clientmcp.LeanStreamableHttpTransport;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.mcp.McpConventions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code tools/call create-note} through the node's MCP endpoint (Streamable HTTP), one initialized
 * session per client thread, opened on the thread's first call (in the warm-up round).
 */
final class McpScenarios {
  private McpScenarios() {}

  private static final Map<String, Object> ARGUMENTS =
      Json.mapper().convertValue(Json.parse(Target.NOTE), new TypeReference<>() {});

  private static final String PROTOCOL_VERSION = ProtocolVersions.MCP_2025_11_25;

  /**
   * create-note with the official SDK client, a new operation key in each call's {@code _meta}. As
   * {@code mcp-keyed-create} the client runs over the SDK's own transport ({@code
   * HttpClientStreamableHttpTransport}, what a user of the SDK gets without ToolLedger's client);
   * as {@code mcp-lean-keyed-create} ({@code lean}), the same SDK client runs over
   * toolledger-client-mcp's {@link LeanStreamableHttpTransport} (what {@code McpActionTransport}
   * uses by default).
   */
  static DefinedScenario sdkKeyedCreate(Target target, AtomicLong keys, boolean lean) {
    // The lean variant has a token of its own: sessions are counted per token
    // (McpOptions.maxSessionsPerToken), and mcp-keyed-create holds one per client thread on the
    // target's token at the same time.
    String token =
        lean ? target.app.tokens().issue(Target.TENANT, "bench-mcp-lean").token() : target.token;
    PerThread<McpSyncClient> clients = new PerThread<>(thread -> openSdk(target, token, lean));
    return DefinedScenario.remote(
        lean ? "mcp-lean-keyed-create" : "mcp-keyed-create",
        (thread, sequence) -> {
          CallToolResult result =
              clients
                  .get(thread)
                  .callTool(
                      CallToolRequest.builder("create-note")
                          .arguments(ARGUMENTS)
                          .meta(
                              Map.of(McpConventions.OPERATION_KEY, Scenarios.newKey(target, keys)))
                          .build());
          Object replayed =
              result.meta() == null ? null : result.meta().get(McpConventions.REPLAYED);
          if (Boolean.TRUE.equals(result.isError()) || !Boolean.FALSE.equals(replayed)) {
            throw new IllegalStateException("MCP call failed or replayed: " + result);
          }
        },
        () ->
            clients.closeAll(
                (thread, client) -> {
                  try {
                    client.closeGracefully();
                  } catch (RuntimeException e) {
                    // The node is shutting down anyway; nothing was measured here.
                  }
                }));
  }

  private static McpSyncClient openSdk(Target target, String token, boolean lean) {
    URI mcp = target.app.mcpUri().orElseThrow();
    McpClientTransport transport =
        lean
            ? LeanStreamableHttpTransport.builder(mcp)
                .header("Authorization", "Bearer " + token)
                .readTimeout(Duration.ofSeconds(30))
                .build()
            : HttpClientStreamableHttpTransport.builder(mcp.resolve("/").toString())
                .endpoint(McpConventions.PATH)
                // HTTP/1.1, as toolledger-client-mcp sets it: the node serves HTTP/1.1, and the
                // JDK client's default (HTTP/2) would offer an h2c upgrade on every new
                // connection. No executor: a direct one runs the SDK's work on the client's
                // selector thread, which the JDK documents as unsafe, and a fixed pool of 2
                // measured no better than the default (docs/benchmarks.md, "Where MCP's time
                // goes").
                .clientBuilder(
                    java.net.http.HttpClient.newBuilder()
                        .version(java.net.http.HttpClient.Version.HTTP_1_1))
                .addHttpRequestCustomizer(
                    (request, method, endpoint, body, context) ->
                        request.header("Authorization", "Bearer " + token))
                .build();
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  /**
   * {@code mcp-keyed-create} without the SDK's client: the same {@code tools/call create-note}
   * through {@code /mcp} (Streamable HTTP), written as raw JSON-RPC POSTs on the harness's own
   * HTTP/1.1 sockets ({@link Http1Clients}, as {@code http-keyed-create} uses). Each client thread
   * holds one initialized session ({@code initialize}, then {@code notifications/initialized}, on
   * its first call); each call is then one POST whose answer, one SSE event or one JSON body, is
   * parsed and checked to be a success that was not replayed. Set against {@code mcp-keyed-create}
   * it isolates what the SDK's client costs; against {@code http-keyed-create}, what the server's
   * MCP path costs beyond the HTTP API's.
   */
  static DefinedScenario rawKeyedCreate(Target target, AtomicLong keys) {
    URI mcp = target.app.mcpUri().orElseThrow();
    Http1Clients http = new Http1Clients(mcp);
    String path = mcp.getRawPath();
    // A token of its own: sessions are counted per token (McpOptions.maxSessionsPerToken), and
    // mcp-keyed-create holds one per client thread on the target's token at the same time.
    String token = target.app.tokens().issue(Target.TENANT, "bench-mcp-raw").token();
    PerThread<String> sessions = new PerThread<>(thread -> openRaw(http, path, token, thread));
    return DefinedScenario.remote(
        "mcp-raw-keyed-create",
        (thread, sequence) -> {
          String session = sessions.get(thread);
          String key = Scenarios.newKey(target, keys);
          // The key is the harness's own ("k-<hex>-<n>"): nothing in it needs escaping.
          String call =
              "{\"jsonrpc\":\"2.0\",\"id\":"
                  + (sequence + 2)
                  + ",\"method\":\"tools/call\",\"params\":{\"name\":\"create-note\","
                  + "\"arguments\":"
                  + Target.NOTE
                  + ",\"_meta\":{\""
                  + McpConventions.OPERATION_KEY
                  + "\":\""
                  + key
                  + "\"}}}";
          Http1Clients.Response response =
              http.postReadingBody(
                  thread, path, rawHeaders(token, session), call.getBytes(StandardCharsets.UTF_8));
          JsonNode result = answer(response).path("result");
          JsonNode meta = result.path("_meta");
          if (result.path("isError").asBoolean(true)
              || !meta.path(McpConventions.REPLAYED).isBoolean()
              || meta.path(McpConventions.REPLAYED).asBoolean()
              || !key.equals(meta.path(McpConventions.OPERATION_KEY).asText())) {
            throw new IllegalStateException("MCP call failed or replayed: " + result);
          }
        },
        () -> {
          sessions.closeAll(
              (thread, session) -> {
                try {
                  http.delete(thread, path, rawHeaders(token, session));
                } catch (Exception e) {
                  // The node is shutting down anyway; nothing was measured here.
                }
              });
          http.close();
        });
  }

  /** Initializes a session on client {@code thread}'s connection; returns its id. */
  private static String openRaw(Http1Clients http, String path, String token, int thread)
      throws Exception {
    String initialize =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\""
            + PROTOCOL_VERSION
            + "\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"toolledger-bench\",\"version\":\"1\"}}}";
    Http1Clients.Response response =
        http.postReadingBody(
            thread, path, rawHeaders(token, null), initialize.getBytes(StandardCharsets.UTF_8));
    if (answer(response).path("result").path("protocolVersion").isMissingNode()
        || response.sessionId() == null) {
      throw new IllegalStateException("MCP initialize answered without a session");
    }
    String session = response.sessionId();
    Http1Clients.Response initialized =
        http.post(
            thread,
            path,
            rawHeaders(token, session),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
                .getBytes(StandardCharsets.UTF_8));
    if (initialized.status() != 202) {
      throw new IllegalStateException(
          "MCP notifications/initialized answered " + initialized.status());
    }
    return session;
  }

  private static Map<String, String> rawHeaders(String token, String session) {
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    headers.put("Authorization", "Bearer " + token);
    headers.put("Content-Type", "application/json");
    headers.put("Accept", "application/json, text/event-stream");
    headers.put("MCP-Protocol-Version", PROTOCOL_VERSION);
    if (session != null) {
      headers.put("Mcp-Session-Id", session);
    }
    return headers;
  }

  /** The JSON-RPC message of a 200 answer: the data of its one SSE event, or its JSON body. */
  private static JsonNode answer(Http1Clients.Response response) {
    String body = response.body();
    if (response.status() != 200 || body == null) {
      throw new IllegalStateException("MCP answered HTTP " + response.status());
    }
    String type = response.contentType() == null ? "" : response.contentType();
    if (!type.startsWith("text/event-stream")) {
      return Json.parse(body);
    }
    StringBuilder data = new StringBuilder(body.length());
    for (String line : body.split("\r?\n", -1)) {
      if (line.startsWith("data:")) {
        if (data.length() > 0) {
          data.append('\n');
        }
        data.append(line, line.startsWith("data: ") ? 6 : 5, line.length());
      }
    }
    return Json.parse(data.toString());
  }
}
