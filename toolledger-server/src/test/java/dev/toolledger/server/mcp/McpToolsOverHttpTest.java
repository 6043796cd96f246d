package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.RawHttp;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP face over Streamable HTTP, driven by the official MCP Java SDK client against a real
 * server on port 0 and a real SQLite file.
 */
class McpToolsOverHttpTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir Path dir;

  @Test
  void listsEveryWriteToolWithItsSchemaAndRetrySafeAnnotationsBesideGetOperation()
      throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      List<Tool> tools = fixture.client(fixture.token("acme")).listTools().tools();

      assertThat(tools).extracting(Tool::name).containsExactly("create-note", "get-operation");
      Tool createNote = tools.get(0);
      assertThat(Json.mapper().<JsonNode>valueToTree(createNote.inputSchema()))
          .isEqualTo(NotesTool.unlimited().descriptor().inputSchema());
      assertThat(createNote.description())
          .isEqualTo(NotesTool.unlimited().descriptor().description());
      assertThat(createNote.annotations().idempotentHint()).isTrue();
      assertThat(createNote.annotations().destructiveHint()).isFalse();
      assertThat(createNote.annotations().readOnlyHint()).isFalse();
      assertThat(createNote.annotations().openWorldHint()).isFalse();
      assertThat(createNote.meta())
          .containsEntry(McpConventions.OPERATION_KEY, "required")
          .containsEntry(McpConventions.TOOL_VERSION, "1");
      Tool getOperation = tools.get(1);
      assertThat(getOperation.inputSchema()).containsEntry("required", List.of("key"));
      assertThat(getOperation.annotations().readOnlyHint()).isTrue();
      assertThat(getOperation.annotations().idempotentHint()).isTrue();
      assertThat(getOperation.annotations().destructiveHint()).isFalse();
    }
  }

  @Test
  void sameKeyInMetaTwiceCreatesOneNoteAndReplaysTheIdenticalResult() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      McpSyncClient client = fixture.client(fixture.token("acme"));

      CallToolResult first = client.callTool(createNote("op-1", "groceries"));
      CallToolResult retry = client.callTool(createNote("op-1", "groceries"));

      assertThat(fixture.notes()).isEqualTo(1);
      assertThat(first.isError()).isFalse();
      assertThat(first.meta())
          .containsEntry(McpConventions.REPLAYED, false)
          .containsEntry(McpConventions.STATE, "COMPLETED")
          .containsEntry(McpConventions.STATUS, 201);
      assertThat(retry.isError()).isFalse();
      assertThat(retry.meta())
          .containsEntry(McpConventions.REPLAYED, true)
          .containsEntry(McpConventions.STATE, "COMPLETED");
      assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
      assertThat(retry.content()).isEqualTo(first.content());
      assertThat(structured(first).get("title").asText()).isEqualTo("groceries");
      assertThat(Json.parse(text(first))).isEqualTo(structured(first));
    }
  }

  @Test
  void sameKeyWithAnotherTitleIsAToolErrorOfTypeKeyReused() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      McpSyncClient client = fixture.client(fixture.token("acme"));
      client.callTool(createNote("op-1", "groceries"));

      CallToolResult conflict = client.callTool(createNote("op-1", "hardware"));

      assertThat(conflict.isError()).isTrue();
      assertThat(problemType(conflict)).isEqualTo(ProblemType.KEY_REUSED.uri().toString());
      assertThat(structured(conflict).get("status").asInt()).isEqualTo(422);
      assertThat(conflict.meta())
          .containsEntry(McpConventions.PROBLEM_TYPE, ProblemType.KEY_REUSED.uri().toString());
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void callWithoutKeyIsAToolErrorThatSaysWhereTheKeyGoes() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      McpSyncClient client = fixture.client(fixture.token("acme"));

      CallToolResult refused =
          client.callTool(
              CallToolRequest.builder("create-note").arguments(Map.of("title", "x")).build());

      assertThat(refused.isError()).isTrue();
      assertThat(problemType(refused)).isEqualTo(ProblemType.MISSING_KEY.uri().toString());
      assertThat(refused.meta())
          .containsEntry(McpConventions.PROBLEM_TYPE, ProblemType.MISSING_KEY.uri().toString());
      assertThat(text(refused))
          .contains("_meta")
          .contains("dev.toolledger/operation-key")
          .contains("Idempotency-Key")
          .contains(ProblemType.MISSING_KEY.uri().toString());
      assertThat(fixture.notes()).isZero();
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  @Test
  void idempotencyKeyHeaderNamesTheOperationJustLikeTheMetaField() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String acme = fixture.token("acme");
      McpSyncClient withHeader = fixture.client(acme, "\"op-h\"");

      CallToolResult first =
          withHeader.callTool(
              CallToolRequest.builder("create-note").arguments(Map.of("title", "x")).build());
      CallToolResult viaMeta = fixture.client(acme).callTool(createNote("op-h", "x"));

      assertThat(first.isError()).isFalse();
      assertThat(first.meta())
          .containsEntry(McpConventions.REPLAYED, false)
          .containsEntry(McpConventions.OPERATION_KEY, "op-h");
      assertThat(viaMeta.meta()).containsEntry(McpConventions.REPLAYED, true);
      assertThat(viaMeta.structuredContent()).isEqualTo(first.structuredContent());
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void headerAndMetaWithDifferentKeysAreRefusedWithoutRecordingAnything() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      McpSyncClient withHeader = fixture.client(fixture.token("acme"), "op-header");

      CallToolResult refused = withHeader.callTool(createNote("op-meta", "x"));
      CallToolResult agreeing = withHeader.callTool(createNote("op-header", "x"));

      assertThat(refused.isError()).isTrue();
      assertThat(problemType(refused)).isEqualTo(ProblemType.INVALID_KEY.uri().toString());
      assertThat(agreeing.isError()).isFalse();
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void getOperationAnswersWithTheSameJsonAsTheHttpLookup() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String acme = fixture.token("acme");
      McpSyncClient client = fixture.client(acme);
      CallToolResult created = client.callTool(createNote("op-1", "groceries"));

      CallToolResult found = client.callTool(getOperation("op-1"));

      assertThat(found.isError()).isFalse();
      assertThat(found.meta()).containsEntry(McpConventions.STATE, "COMPLETED");
      JsonNode operation = structured(found);
      assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
      assertThat(operation.get("tool").asText()).isEqualTo("create-note");
      assertThat(operation.at("/response/status").asInt()).isEqualTo(201);
      assertThat(operation.at("/response/body")).isEqualTo(structured(created));
      HttpResponse<String> lookup =
          HTTP.send(
              HttpRequest.newBuilder(fixture.uri().resolve("/v1/operations/op-1"))
                  .header("Authorization", "Bearer " + acme)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(lookup.statusCode()).isEqualTo(200);
      assertThat(operation).isEqualTo(Json.parse(lookup.body()));
    }
  }

  @Test
  void getOperationAnswersAnotherTenantsKeyExactlyLikeAnUnknownKey() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      fixture.client(fixture.token("acme")).callTool(createNote("acme-op", "secret plans"));
      McpSyncClient globex = fixture.client(fixture.token("globex"));

      CallToolResult foreign = globex.callTool(getOperation("acme-op"));
      CallToolResult unknown = globex.callTool(getOperation("never-sent"));

      assertThat(foreign.isError()).isTrue();
      assertThat(problemType(foreign)).isEqualTo(ProblemType.NOT_FOUND.uri().toString());
      assertThat(foreign.structuredContent()).isEqualTo(unknown.structuredContent());
      assertThat(foreign.content()).isEqualTo(unknown.content());
      assertThat(foreign.meta()).isEqualTo(unknown.meta());
      assertThat(text(foreign)).doesNotContain("secret plans");
    }
  }

  @Test
  void requestsWithoutAValidBearerTokenAreRefused() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      for (String authorization : new String[] {null, "Bearer tl_nope_nope", "Basic abc"}) {
        HttpRequest.Builder request =
            HttpRequest.newBuilder(fixture.mcpUri())
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(RawMcp.INITIALIZE));
        if (authorization != null) {
          request.header("Authorization", authorization);
        }
        HttpResponse<String> refused =
            HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).as(String.valueOf(authorization)).isEqualTo(401);
        assertThat(refused.headers().firstValue("Content-Type"))
            .hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("WWW-Authenticate")).isPresent();
        assertThat(Json.parse(refused.body()).get("type").asText())
            .isEqualTo(ProblemType.UNAUTHORIZED.uri().toString());
      }
      assertThatThrownBy(() -> fixture.client("tl_000000000000_forged"))
          .isInstanceOf(Exception.class);
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  @Test
  void aRefusalAnsweredBeforeItsBodyArrivedLeavesTheKeptAliveConnectionUsable() throws Exception {
    // The gate refuses a missing token on the headers alone. Had the server then closed the
    // connection because the body was still unread, a client that had pooled it would see its next
    // POST die on it ("header parser received no bytes"): a CI flake of the test above.
    try (McpFixture fixture = McpFixture.start(dir)) {
      int[] statuses =
          RawHttp.refusedThenNextOnSameConnection(
              fixture.uri(),
              "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + "Accept: application/json, text/event-stream",
              RawMcp.INITIALIZE.getBytes(StandardCharsets.UTF_8));

      assertThat(statuses[0]).as("the refusal").isEqualTo(401);
      assertThat(statuses[1]).as("the next request on the same connection").isEqualTo(200);
    }
  }

  @Test
  void standingSseStreamIsNotOfferedSoGetAnswers405() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      HttpResponse<String> get =
          HTTP.send(
              HttpRequest.newBuilder(fixture.mcpUri())
                  .header("Authorization", "Bearer " + fixture.token("acme"))
                  .header("Accept", "text/event-stream")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(get.statusCode()).isEqualTo(405);
      assertThat(get.headers().firstValue("Allow")).hasValue("POST, DELETE");
      assertThat(Json.parse(get.body()).get("type").asText())
          .isEqualTo(ProblemType.METHOD_NOT_ALLOWED.uri().toString());
    }
  }

  @Test
  void recordedBusinessErrorIsAToolErrorReplayedWithItsRecordedBody() throws Exception {
    try (McpFixture fixture =
        McpFixture.start(dir, app -> app.plugin(NotesPlugin.serving(NotesTool.withQuota(0))))) {
      McpSyncClient client = fixture.client(fixture.token("acme"));

      CallToolResult refused = client.callTool(createNote("op-1", "one too many"));
      CallToolResult retry = client.callTool(createNote("op-1", "one too many"));

      assertThat(refused.isError()).isTrue();
      assertThat(problemType(refused)).isEqualTo(NotesTool.QUOTA_EXCEEDED);
      assertThat(refused.meta())
          .containsEntry(McpConventions.REPLAYED, false)
          .containsEntry(McpConventions.STATUS, 409)
          .containsEntry(McpConventions.STATE, "COMPLETED")
          .containsEntry(McpConventions.PROBLEM_TYPE, NotesTool.QUOTA_EXCEEDED);
      assertThat(retry.isError()).isTrue();
      assertThat(retry.meta()).containsEntry(McpConventions.REPLAYED, true);
      assertThat(retry.structuredContent()).isEqualTo(refused.structuredContent());
      assertThat(fixture.notes()).isZero();
    }
  }

  @Test
  void invalidArgumentsAreAToolErrorThatLeavesTheKeyFree() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      McpSyncClient client = fixture.client(fixture.token("acme"));

      CallToolResult invalid =
          client.callTool(
              CallToolRequest.builder("create-note")
                  .arguments(Map.of("title", ""))
                  .meta(Map.of(McpConventions.OPERATION_KEY, "op-1"))
                  .build());
      CallToolResult corrected = client.callTool(createNote("op-1", "fixed"));

      assertThat(invalid.isError()).isTrue();
      assertThat(problemType(invalid)).isEqualTo(ProblemType.INVALID_PARAMETERS.uri().toString());
      assertThat(structured(invalid).at("/errors/0/field").asText()).isEqualTo("/title");
      assertThat(corrected.isError()).isFalse();
      assertThat(corrected.meta()).containsEntry(McpConventions.REPLAYED, false);
    }
  }

  @Test
  void unkeyedCallOfAnAllowedToolGetsAFreshKeyAndTheToolIsNotAnnouncedIdempotent()
      throws Exception {
    try (McpFixture fixture =
        McpFixture.start(
            dir, app -> app.mcp(McpOptions.builder().allowUnkeyed(NotesTool.NAME).build()))) {
      McpSyncClient client = fixture.client(fixture.token("acme"));
      CallToolRequest unkeyed =
          CallToolRequest.builder("create-note").arguments(Map.of("title", "again")).build();

      Tool tool = client.listTools().tools().get(0);
      CallToolResult first = client.callTool(unkeyed);
      CallToolResult second = client.callTool(unkeyed);

      assertThat(tool.annotations().idempotentHint()).isFalse();
      assertThat(tool.meta()).containsEntry(McpConventions.OPERATION_KEY, "optional");
      assertThat(first.isError()).isFalse();
      assertThat(second.isError()).isFalse();
      assertThat(fixture.notes()).isEqualTo(2);
      Object minted = first.meta().get(McpConventions.OPERATION_KEY);
      assertThat(minted)
          .isInstanceOf(String.class)
          .isNotEqualTo(second.meta().get(McpConventions.OPERATION_KEY));
      CallToolResult lookup = client.callTool(getOperation((String) minted));
      assertThat(structured(lookup).get("state").asText()).isEqualTo("COMPLETED");
    }
  }

  @Test
  void externalToolIsAnnouncedOpenWorldAndItsCertainNonEffectIsARetryableToolError()
      throws Exception {
    try (McpFixture fixture =
        McpFixture.start(dir, app -> app.tool(new UnreachableServiceTool()))) {
      McpSyncClient client = fixture.client(fixture.token("acme"));
      Tool tool =
          client.listTools().tools().stream()
              .filter(t -> t.name().equals(UnreachableServiceTool.NAME))
              .findFirst()
              .orElseThrow();

      CallToolResult unavailable =
          client.callTool(
              CallToolRequest.builder(UnreachableServiceTool.NAME)
                  .arguments(Map.of())
                  .meta(Map.of(McpConventions.OPERATION_KEY, "op-1"))
                  .build());

      assertThat(tool.annotations().openWorldHint()).isTrue();
      assertThat(tool.annotations().idempotentHint()).isTrue();
      assertThat(unavailable.isError()).isTrue();
      assertThat(problemType(unavailable)).isEqualTo(ProblemType.TOOL_UNAVAILABLE.uri().toString());
      assertThat(unavailable.meta()).containsKey(McpConventions.RETRY_AFTER_SECONDS);
    }
  }

  @Test
  void anActionStartedOverHttpIsReplayedOverMcpUnderTheSameKey() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      String acme = fixture.token("acme");
      HttpResponse<String> overHttp =
          HTTP.send(
              HttpRequest.newBuilder(fixture.uri().resolve("/v1/tools/create-note"))
                  .header("Authorization", "Bearer " + acme)
                  .header("Idempotency-Key", "op-1")
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"groceries\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      CallToolResult overMcp = fixture.client(acme).callTool(createNote("op-1", "groceries"));

      assertThat(overHttp.statusCode()).isEqualTo(201);
      assertThat(overMcp.meta()).containsEntry(McpConventions.REPLAYED, true);
      assertThat(structured(overMcp)).isEqualTo(Json.parse(overHttp.body()));
      assertThat(text(overMcp)).isEqualTo(overHttp.body());
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void turnedOffMcpLeavesTheHttpApiAloneAndAnswersNotFoundAtItsPath() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir, app -> app.mcp(McpOptions.disabled()))) {
      String acme = fixture.token("acme");
      URI mcp = fixture.uri().resolve(McpConventions.PATH);

      HttpResponse<String> atMcp =
          HTTP.send(
              HttpRequest.newBuilder(mcp)
                  .header("Authorization", "Bearer " + acme)
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .POST(HttpRequest.BodyPublishers.ofString(RawMcp.INITIALIZE))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> tools =
          HTTP.send(
              HttpRequest.newBuilder(fixture.uri().resolve("/v1/tools"))
                  .header("Authorization", "Bearer " + acme)
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(fixture.app.mcpUri()).isEmpty();
      assertThat(atMcp.statusCode()).isEqualTo(404);
      assertThat(tools.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void messageWithDuplicateArgumentNamesIsRefusedBeforeAnythingRuns() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      HttpResponse<String> refused =
          raw.post(
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                  + "\"name\":\"create-note\",\"_meta\":{\"dev.toolledger/operation-key\":\"op-1\"},"
                  + "\"arguments\":{\"title\":\"a\",\"title\":\"b\"}}}");

      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(fixture.notes()).isZero();
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    }
  }

  static CallToolRequest createNote(String key, String title) {
    return CallToolRequest.builder("create-note")
        .arguments(Map.of("title", title))
        .meta(Map.of(McpConventions.OPERATION_KEY, key))
        .build();
  }

  static CallToolRequest getOperation(String key) {
    return CallToolRequest.builder(McpConventions.GET_OPERATION)
        .arguments(Map.of("key", key))
        .build();
  }

  static JsonNode structured(CallToolResult result) {
    return Json.mapper().valueToTree(result.structuredContent());
  }

  static String problemType(CallToolResult result) {
    return structured(result).path("type").asText();
  }

  static String text(CallToolResult result) {
    assertThat(result.content()).hasSize(1);
    return ((TextContent) result.content().get(0)).text();
  }
}
