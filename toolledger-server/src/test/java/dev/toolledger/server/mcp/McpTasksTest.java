package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.testkit.MovableClock;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tasks of MCP 2025-11-25 against a real node over real sockets: a call still running, or whose
 * outcome is unknown, is answered with a task bound to the tenant and the operation, polled with
 * tasks/get and ended with the recorded outcome, replayed; clients that do not ask for a task keep
 * today's answers.
 */
class McpTasksTest {
  private static final Duration MAX_WAIT = Duration.ofMillis(200);

  @TempDir Path dir;

  private McpFixture start(ExternalTool... external) {
    return McpFixture.start(
        dir,
        app -> {
          app.engineConfig(EngineConfig.builder().maxWait(MAX_WAIT).build());
          for (ExternalTool tool : external) {
            app.tool(tool);
          }
          return app;
        });
  }

  @Test
  void callStillRunningIsAnsweredWithATaskThatEndsWithTheRecordedOutcome() throws Exception {
    HeldEffectTool slow = new HeldEffectTool();
    try (McpFixture fixture = start(slow)) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
      try (Socket holder = raw.postAndKeepOpen(call(1, "op-t1", "held", false))) {
        assertThat(slow.entered.await(30, TimeUnit.SECONDS)).as("the tool started").isTrue();

        JsonNode created = result(raw.post(call(2, "op-t1", "held", true)));
        JsonNode task = created.get("task");
        String taskId = task.get("taskId").asText();
        assertThat(task.get("status").asText()).isEqualTo("working");
        assertThat(taskId).hasSizeGreaterThanOrEqualTo(43).doesNotContain("op-t1");
        assertThat(task.get("pollInterval").asLong()).isPositive();
        assertThat(task.get("ttl").asLong()).isPositive();
        assertThat(task.has("createdAt")).isTrue();
        assertThat(result(raw.post(get(3, taskId))).get("status").asText()).isEqualTo("working");
        JsonNode listed =
            result(raw.post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/list\"}"));
        assertThat(listed.get("tasks")).hasSize(1);
        assertThat(listed.get("tasks").get(0).get("taskId").asText()).isEqualTo(taskId);

        // Another tenant: the same answer as an id never issued, and its list is empty.
        RawMcp other = RawMcp.open(fixture.mcpUri(), fixture.token("globex"));
        JsonNode foreign = Json.parse(other.post(get(5, taskId)).body());
        JsonNode never = Json.parse(other.post(get(6, "no-such-task")).body());
        assertThat(foreign.get("error").get("code").asInt()).isEqualTo(-32602);
        assertThat(foreign.get("error").get("message").asText())
            .isEqualTo(never.get("error").get("message").asText())
            .isEqualTo(McpTasks.NOT_FOUND);
        assertThat(
                result(other.post("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks/list\"}"))
                    .get("tasks"))
            .isEmpty();

        // Before the holder ends, tasks/result waits up to the max wait, then says what a call
        // says.
        JsonNode early =
            result(
                raw.post(
                    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tasks/result\","
                        + "\"params\":{\"taskId\":\""
                        + taskId
                        + "\"}}"));
        assertThat(early.get("isError").asBoolean()).isTrue();
        assertThat(early.get("_meta").get(McpConventions.STATE).asText()).isEqualTo("IN_PROGRESS");

        slow.release.countDown();
        // Polled for up to 30 s: the released call commits on a machine that may be loaded.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode polled = result(raw.post(get(8, taskId)));
        while (polled.get("status").asText().equals("working") && System.nanoTime() < deadline) {
          Thread.sleep(25);
          polled = result(raw.post(get(8, taskId)));
        }
        assertThat(polled.get("status").asText()).isEqualTo("completed");
        assertThat(polled.has("pollInterval")).isFalse();

        JsonNode outcome =
            result(
                raw.post(
                    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tasks/result\","
                        + "\"params\":{\"taskId\":\""
                        + taskId
                        + "\"}}"));
        assertThat(outcome.get("isError").asBoolean()).isFalse();
        assertThat(outcome.get("structuredContent").get("title").asText()).isEqualTo("held");
        assertThat(outcome.get("_meta").get(McpConventions.REPLAYED).asBoolean()).isTrue();
        assertThat(outcome.get("_meta").get(McpConventions.OPERATION_KEY).asText())
            .isEqualTo("op-t1");
        assertThat(slow.performed.get()).isEqualTo(1);
      }
    }
  }

  @Test
  void clientThatAsksForNoTaskGetsTodaysInProgressError() throws Exception {
    HeldEffectTool slow = new HeldEffectTool();
    try (McpFixture fixture = start(slow)) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
      try (Socket holder = raw.postAndKeepOpen(call(1, "op-t2", "held", false))) {
        assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue();

        JsonNode plain = result(raw.post(call(2, "op-t2", "held", false)));

        assertThat(plain.has("task")).isFalse();
        assertThat(plain.get("isError").asBoolean()).isTrue();
        assertThat(plain.get("_meta").get(McpConventions.PROBLEM_TYPE).asText())
            .isEqualTo(ProblemType.IN_PROGRESS.uri().toString());
        slow.release.countDown();
        holder.setSoTimeout(10_000);
        assertThat(holder.getInputStream().read()).as("the held call answered").isNotNegative();
      }
    }
  }

  @Test
  void unknownOutcomeIsATaskThatRequiresInputAndItsResultSaysUnknown() throws Exception {
    try (McpFixture fixture = start(new LostAnswerTool())) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      JsonNode task =
          result(
                  raw.post(
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                          + "\"name\":\""
                          + LostAnswerTool.NAME
                          + "\",\"arguments\":{},\"task\":{\"ttl\":60000},"
                          + "\"_meta\":{\""
                          + McpConventions.OPERATION_KEY
                          + "\":\"op-lost\"}}}"))
              .get("task");
      String taskId = task.get("taskId").asText();

      assertThat(task.get("status").asText()).isEqualTo("input_required");
      assertThat(task.get("statusMessage").asText()).contains("unknown").contains("resolve");
      assertThat(result(raw.post(get(2, taskId))).get("status").asText())
          .isEqualTo("input_required");
      JsonNode outcome =
          result(
              raw.post(
                  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/result\","
                      + "\"params\":{\"taskId\":\""
                      + taskId
                      + "\"}}"));
      assertThat(outcome.get("isError").asBoolean()).isTrue();
      assertThat(outcome.get("_meta").get(McpConventions.STATE).asText()).isEqualTo("UNKNOWN");
    }
  }

  @Test
  void aCallThatEndsAtOnceIsACompletedTaskAndTheToolsSayTheyAcceptTasks() throws Exception {
    try (McpFixture fixture = start()) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      String taskId =
          result(
                  raw.post(
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                          + "\"name\":\"create-note\",\"arguments\":{\"title\":\"now\"},"
                          + "\"task\":{},\"_meta\":{\""
                          + McpConventions.OPERATION_KEY
                          + "\":\"op-now\"}}}"))
              .get("task")
              .get("taskId")
              .asText();
      JsonNode polled = result(raw.post(get(2, taskId)));
      JsonNode tools = result(raw.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"));

      assertThat(polled.get("status").asText()).isEqualTo("completed");
      for (JsonNode tool : tools.get("tools")) {
        String support = tool.path("execution").path("taskSupport").asText(null);
        assertThat(support)
            .as(tool.get("name").asText())
            .isEqualTo(tool.get("name").asText().equals("get-operation") ? null : "optional");
      }
    }
  }

  @Test
  void sessionOfAnEarlierRevisionGetsNoTasksAndTodaysAnswers() throws Exception {
    try (McpFixture fixture = start()) {
      String token = fixture.token("acme");
      String init = RawMcp.INITIALIZE.replace(RawMcp.PROTOCOL_VERSION, "2025-06-18");
      HttpResponse<String> opened =
          RawMcp.send(
              fixture.mcpUri(), token, null, init.getBytes(StandardCharsets.UTF_8), Map.of());
      String session = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
      Map<String, String> v = Map.of("MCP-Protocol-Version", "2025-06-18");

      JsonNode created =
          Json.parse(
              RawMcp.send(
                      fixture.mcpUri(),
                      token,
                      session,
                      call(2, "op-old", "old", true).getBytes(StandardCharsets.UTF_8),
                      v)
                  .body());
      JsonNode get =
          Json.parse(
              RawMcp.send(
                      fixture.mcpUri(),
                      token,
                      session,
                      get(3, "x").getBytes(StandardCharsets.UTF_8),
                      v)
                  .body());

      assertThat(Json.parse(opened.body()).get("result").get("capabilities").has("tasks"))
          .isFalse();
      assertThat(created.get("result").has("task")).isFalse();
      assertThat(created.get("result").get("structuredContent").get("title").asText())
          .isEqualTo("old");
      assertThat(get.get("error").get("code").asInt()).isEqualTo(-32601);
    }
  }

  @Test
  void sessionOf20251125DeclaresTheTasksCapability() throws Exception {
    try (McpFixture fixture = start()) {
      JsonNode init = Json.parse(RawMcp.initialize(fixture.mcpUri(), fixture.token("acme")).body());

      JsonNode tasks = init.get("result").get("capabilities").get("tasks");
      assertThat(tasks.get("requests").get("tools").has("call")).isTrue();
      assertThat(tasks.has("list")).isTrue();
      assertThat(tasks.has("cancel")).isFalse();
    }
  }

  @Test
  void taskIsKeptForItsToolsRetentionAndOnlyForTokensThatMayCallTheTool() throws Exception {
    MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    try (McpFixture fixture =
        McpFixture.start(
            dir,
            app ->
                app.engineConfig(
                        EngineConfig.builder()
                            .maxWait(MAX_WAIT)
                            .retention("create-note", Duration.ofMinutes(10))
                            .build())
                    .mcp(McpOptions.builder().sessionClock(clock).build()))) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
      JsonNode task =
          result(
                  raw.post(
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                          + "\"name\":\"create-note\",\"arguments\":{\"title\":\"kept\"},"
                          + "\"task\":{\"ttl\":1},\"_meta\":{\""
                          + McpConventions.OPERATION_KEY
                          + "\":\"op-kept\"}}}"))
              .get("task");
      String taskId = task.get("taskId").asText();
      RawMcp readOnly = RawMcp.open(fixture.mcpUri(), McpScopesTest.token(fixture, "read"));

      assertThat(task.get("ttl").asLong()).isEqualTo(Duration.ofMinutes(10).toMillis());
      assertThat(result(raw.post(get(2, taskId))).get("status").asText()).isEqualTo("completed");
      assertThat(
              Json.parse(readOnly.post(get(3, taskId)).body()).get("error").get("message").asText())
          .isEqualTo(McpTasks.NOT_FOUND);

      clock.advance(Duration.ofMinutes(9));
      assertThat(result(raw.post(get(4, taskId))).get("status").asText()).isEqualTo("completed");
      clock.advance(Duration.ofMinutes(1));
      assertThat(Json.parse(raw.post(get(5, taskId)).body()).get("error").get("message").asText())
          .isEqualTo(McpTasks.NOT_FOUND);
    }
  }

  @Test
  void tasksCancelIsNotOfferedSinceAStartedWriteCannotBeStopped() throws Exception {
    try (McpFixture fixture = start()) {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));

      JsonNode cancel =
          Json.parse(
              raw.post(
                      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/cancel\","
                          + "\"params\":{\"taskId\":\"x\"}}")
                  .body());

      assertThat(cancel.get("error").get("code").asInt()).isEqualTo(-32601);
    }
  }

  @Test
  void discoverProbeOfTheStatelessRevisionIsRefusedSoSdksFallBackToInitialize() throws Exception {
    try (McpFixture fixture = start()) {
      HttpResponse<String> probe =
          RawMcp.send(
              fixture.mcpUri(),
              fixture.token("acme"),
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{}}"
                  .getBytes(StandardCharsets.UTF_8),
              Map.of("MCP-Protocol-Version", "2026-07-28"));

      assertThat(probe.statusCode()).isEqualTo(400);
    }
  }

  private static JsonNode result(HttpResponse<String> answer) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode json = Json.parse(answer.body());
    assertThat(json.has("result")).as(answer.body()).isTrue();
    return json.get("result");
  }

  private static String get(int id, String taskId) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tasks/get\",\"params\":{\"taskId\":\""
        + taskId
        + "\"}}";
  }

  private static String call(int id, String key, String title, boolean task) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
        + (key.equals("op-old") ? "create-note" : HeldEffectTool.NAME)
        + "\",\"arguments\":{\"title\":\""
        + title
        + "\"},"
        + (task ? "\"task\":{}," : "")
        + "\"_meta\":{\""
        + McpConventions.OPERATION_KEY
        + "\":\""
        + key
        + "\"}}}";
  }

  /**
   * An external tool whose effect waits until the test lets it go: its claim is committed (the
   * operation is IN_PROGRESS) while it waits, and no database lock is held.
   */
  static final class HeldEffectTool implements ExternalTool {
    static final String NAME = "held-effect";

    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger performed = new AtomicInteger();

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder(NAME, "1")
          .description("Performs an effect once the test lets it go.")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
      entered.countDown();
      if (!release.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never let the effect go");
      }
      performed.incrementAndGet();
      return EffectResult.done(
          ToolResponse.of(201, Json.object().put("title", parameters.path("title").asText())));
    }
  }

  /**
   * An external tool that performs its effect and then loses the answer: the outcome is unknown.
   */
  static final class LostAnswerTool implements ExternalTool {
    static final String NAME = "send-and-lose";

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder(NAME, "1")
          .description("Sends, then never hears back.")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
      throw new SocketTimeoutException("no answer from downstream");
    }
  }
}
