package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP endpoint answers every JSON-RPC request with one {@code application/json} message (no SSE
 * stream), a notification or a client's response with {@code 202} and no body, and keeps every
 * error answer the gate gives.
 */
class McpJsonAnswerTest {
  @TempDir Path dir;

  @Test
  void initializeAnswersOneJsonMessageWithTheSessionHeader() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      HttpResponse<String> init = RawMcp.initialize(fixture.mcpUri(), fixture.token("acme"));

      assertThat(init.statusCode()).isEqualTo(200);
      assertThat(init.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(init.headers().firstValue("Mcp-Session-Id"))
          .hasValueSatisfying(
              id -> {
                assertThat(id).isNotBlank();
              });
      assertThat(init.headers().firstValueAsLong("Content-Length"))
          .hasValue(init.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
      JsonNode answer = Json.parse(init.body());
      assertThat(answer.path("jsonrpc").asText()).isEqualTo("2.0");
      assertThat(answer.path("id").asInt()).isEqualTo(1);
      assertThat(answer.path("result").path("protocolVersion").asText())
          .isEqualTo(RawMcp.PROTOCOL_VERSION);
      assertThat(answer.path("result").path("serverInfo").path("name").asText())
          .isEqualTo("toolledger");
    }
  }

  @Test
  void toolCallIsAnsweredWithOneJsonMessageNotAnSseStream() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp session = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      HttpResponse<String> call = session.post(createNote("op-json", 7));
      HttpResponse<String> replay = session.post(createNote("op-json", 8));

      assertThat(call.statusCode()).isEqualTo(200);
      assertThat(call.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(call.headers().firstValue("Cache-Control")).hasValue("no-store");
      assertThat(call.body()).startsWith("{").doesNotContain("data:");
      JsonNode first = Json.parse(call.body());
      assertThat(first.path("id").asInt()).isEqualTo(7);
      assertThat(first.path("result").path("isError").asBoolean(true)).isFalse();
      assertThat(first.path("result").path("_meta").path(McpConventions.REPLAYED).asBoolean(true))
          .isFalse();
      JsonNode second = Json.parse(replay.body());
      assertThat(second.path("id").asInt()).isEqualTo(8);
      assertThat(second.path("result").path("_meta").path(McpConventions.REPLAYED).asBoolean())
          .isTrue();
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void unknownMethodIsAJsonRpcErrorInAJsonAnswer() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp session = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      HttpResponse<String> answer =
          session.post("{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"no/such-method\"}");

      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/json");
      JsonNode error = Json.parse(answer.body());
      assertThat(error.path("id").asText()).isEqualTo("u");
      assertThat(error.path("error").path("code").asInt())
          .isEqualTo(McpSchema.ErrorCodes.METHOD_NOT_FOUND);
      McpHardeningTest.assertNoInternals(answer.body());
    }
  }

  @Test
  void notificationIsAccepted202WithoutABodyAndAStrayResponseIsAStableError() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp session = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      HttpResponse<String> notification =
          session.post(
              "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                  + "{\"requestId\":99,\"reason\":\"test\"}}");
      // This server never sends the client a request, so no response can be awaited.
      HttpResponse<String> response =
          session.post("{\"jsonrpc\":\"2.0\",\"id\":\"server-1\",\"result\":{}}");

      assertThat(notification.statusCode()).isEqualTo(202);
      assertThat(notification.body()).isEmpty();
      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(Json.parse(response.body()).path("error").path("code").asInt())
          .isEqualTo(JsonRpcErrors.INTERNAL_ERROR.code());
      McpHardeningTest.assertNoInternals(response.body());
      // The session is still usable afterwards.
      assertThat(session.post(ping()).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void deletedSessionIsGoneForTheGateAndTheTransportAlike() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp session = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      HttpResponse<String> deleted = session.delete();
      HttpResponse<String> after = session.post(ping());
      HttpResponse<String> again = session.delete();

      assertThat(deleted.statusCode()).isEqualTo(200);
      assertThat(after.statusCode()).isEqualTo(404);
      assertThat(after.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(Json.parse(after.body()).path("type").asText())
          .isEqualTo(ProblemType.MCP_SESSION_NOT_FOUND.uri().toString());
      assertThat(again.statusCode()).isEqualTo(404);
    }
  }

  @Test
  void sweepFreesTheSdkSessionsTheGateNoLongerHoldsButNotOneJustOpened() {
    MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    JsonMapper mapper = JsonMapper.builder().build();
    JsonAnswerTransport transport =
        new JsonAnswerTransport(
            mapper,
            new JacksonMcpJsonMapper(mapper),
            request -> McpTransportContext.EMPTY,
            clock,
            Duration.ofMinutes(10),
            null);
    transport.hold(session("open"));
    transport.hold(session("forgotten"));
    clock.advance(Duration.ofMinutes(10));
    transport.hold(session("just-opened"));
    Set<String> gateHolds = Set.of("open");

    transport.sweep(gateHolds::contains);

    assertThat(transport.sessionCount()).isEqualTo(2); // "open" and "just-opened"
    clock.advance(Duration.ofMinutes(10));
    transport.sweep(gateHolds::contains);
    assertThat(transport.sessionCount()).isEqualTo(1);
  }

  @Test
  void closedNodeLeavesNoSessionSweeperThread() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
    }

    // The SDK's servlet transport left a non-daemon sweeper thread behind, which kept an embedded
    // node's JVM from exiting; ours sweeps on Reactor's daemon threads and stops on close.
    assertThat(Thread.getAllStackTraces().keySet())
        .filteredOn(thread -> thread.isAlive() && !thread.isDaemon())
        .extracting(Thread::getName)
        .noneMatch(name -> name.contains("sweeper"));
  }

  private static McpStreamableServerSession session(String id) {
    return new McpStreamableServerSession(
        id,
        McpSchema.ClientCapabilities.builder().build(),
        new McpSchema.Implementation("test", "1"),
        Duration.ofSeconds(5),
        Map.of(),
        Map.of());
  }

  private static String createNote(String key, int id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"create-note\","
        + "\"arguments\":{\"title\":\"json\"},\"_meta\":{\""
        + McpConventions.OPERATION_KEY
        + "\":\""
        + key
        + "\"}}}";
  }

  private static String ping() {
    return "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}";
  }
}
