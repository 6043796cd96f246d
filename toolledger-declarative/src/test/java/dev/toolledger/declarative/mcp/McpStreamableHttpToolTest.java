package dev.toolledger.declarative.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.Http;
import dev.toolledger.declarative.Http.Reply;
import dev.toolledger.declarative.ToolsFile;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The example tracker over Streamable HTTP (a child process on port 0, wanting a bearer token that
 * the tools file reads from the environment) behind a ToolLedger node on a SQLite file: the schema
 * taken from the upstream's tools/list, an upstream restart between calls, an upstream that is
 * down, a timeout after the effect, and the token nowhere in answers, history, ToolLedger's own
 * tools/list, /openapi.json or logs at any level.
 */
class McpStreamableHttpToolTest {
  private static final String PROBLEMS = "https://toolledger.dev/problems/";
  private static final String TOOL = "/v1/tools/create-ticket";
  private static final String TICKET = "{\"title\":\"Printer on fire\"}";

  @TempDir Path dir;
  TrackerUpstream tracker;
  LedgerNodes nodes;
  McpTool tool;
  String acme;

  @BeforeEach
  void startTracker() throws Exception {
    tracker = new TrackerUpstream(Files.createDirectories(dir.resolve("tracker")));
    tracker.startHttp();
  }

  @AfterEach
  void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
    if (tool != null) {
      tool.close();
    }
    tracker.close();
  }

  private void start(String extra) throws Exception {
    String yaml =
        """
        tools:
          - kind: mcp
            name: create-ticket
            version: "1"
            upstream:
              url: %s
              headers: {Authorization: "Bearer ${TRACKER_TOKEN}"}
              timeout: 3s
            tool: create_ticket
        %s"""
            .formatted(tracker.url(), extra);
    Path file = dir.resolve("tools.yaml");
    Files.writeString(file, yaml);
    List<Tool> tools =
        ToolsFile.load(
            file, Map.of("TRACKER_TOKEN", TrackerUpstream.TOKEN), ToolsFile.builtInKinds());
    tool = (McpTool) tools.get(0);
    nodes = LedgerNodes.sqlite(dir.resolve("ledger.db"));
    nodes.start((ExternalTool) tool);
    acme = nodes.token("acme");
  }

  private Reply call(String key, String parameters) {
    return Http.post(nodes.node(0), TOOL, acme, key, parameters);
  }

  @Test
  void upstreamSchemaIsServedAndTheTokenAppearsInNoAnswerHistoryListingOrLog() throws Exception {
    LoggerContext logs = (LoggerContext) LoggerFactory.getILoggerFactory();
    Map<String, Level> levels = new HashMap<>();
    for (String name : List.of("io.modelcontextprotocol", "dev.toolledger", "reactor")) {
      levels.put(name, logs.getLogger(name).getLevel());
      logs.getLogger(name).setLevel(Level.TRACE);
    }
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    Logger root = logs.getLogger(Logger.ROOT_LOGGER_NAME);
    root.addAppender(captured);
    String everything;
    try {
      start("");
      JsonNode schema = tool.descriptor().inputSchema();
      assertThat(schema.path("properties").path("title").path("minLength").asInt()).isEqualTo(1);
      assertThat(tool.descriptor().description()).contains("Not idempotent");

      Reply first = call("t-1", TICKET);
      assertThat(first.status()).isEqualTo(200);
      assertThat(call("t-1", TICKET).replayed()).isTrue();
      Reply invalid = call("t-2", "{\"title\":\"\"}");
      assertThat(invalid.status()).isEqualTo(400);
      assertThat(invalid.problemType()).isEqualTo(PROBLEMS + "invalid-parameters");
      assertThat(tracker.ticketCount()).isEqualTo(1);

      Reply openApi = Http.get(nodes.node(0), "/openapi.json", acme);
      assertThat(openApi.body()).contains("create-ticket").contains("minLength");
      String operation = Http.get(nodes.node(0), "/v1/operations/t-1", acme).body();
      String listed = ledgerToolsList();
      assertThat(listed).contains("create-ticket").contains("minLength");
      everything =
          first.body()
              + invalid.body()
              + openApi.body()
              + operation
              + listed
              + tool
              + captured.list.stream()
                  .map(e -> e.getFormattedMessage() + " " + e.getThrowableProxy())
                  .collect(Collectors.joining("\n"));
    } finally {
      root.detachAppender(captured);
      levels.forEach((name, level) -> logs.getLogger(name).setLevel(level));
    }
    assertThat(captured.list).isNotEmpty();
    assertThat(everything).doesNotContain(TrackerUpstream.TOKEN);
  }

  /** ToolLedger's own MCP tools/list, as an agent sees it. */
  private String ledgerToolsList() {
    URI mcp = nodes.app(0).mcpUri().orElseThrow();
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(mcp.getScheme() + "://" + mcp.getRawAuthority())
            .endpoint(mcp.getRawPath())
            .jsonMapper(new JacksonMcpJsonMapperSupplier().get())
            .addHttpRequestCustomizer(
                (request, method, uri, body, context) ->
                    request.header("Authorization", "Bearer " + acme))
            .build();
    try (McpSyncClient client =
        McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build()) {
      client.initialize();
      McpSchema.ListToolsResult tools = client.listTools();
      return tools.tools().toString();
    }
  }

  @Test
  void upstreamRestartBetweenCallsIsHandledByANewSessionAndADownUpstreamIsNotDone()
      throws Exception {
    start(
        """
            parameters:
              type: object
              required: [title]
              properties: {title: {type: string}}
        """);
    assertThat(call("t-1", TICKET).status()).isEqualTo(200);

    tracker.killHttp();
    Reply down = call("t-2", TICKET);
    assertThat(down.status()).isEqualTo(503);
    assertThat(down.problemType()).isEqualTo(PROBLEMS + "tool-unavailable");
    assertThat(down.json().get("detail").asText()).doesNotContain(tracker.url());

    tracker.startHttp();
    Reply again = call("t-2", TICKET);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.replayed()).isFalse();
    assertThat(call("t-3", TICKET).status()).isEqualTo(200);
    assertThat(tracker.ticketCount()).isEqualTo(3);
  }

  @Test
  void timeoutAfterTheEffectIsUnknownAndNeverCalledAgain() throws Exception {
    start(
        """
            parameters:
              type: object
              required: [title]
              properties: {title: {type: string}}
        """);
    assertThat(call("warm-up", TICKET).status()).isEqualTo(200);
    tracker.fault("hang-after-effect");

    Reply first = call("t-1", TICKET);
    Reply retry = call("t-1", TICKET);

    assertThat(first.status()).isEqualTo(409);
    assertThat(first.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    assertThat(retry.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    assertThat(tracker.ticketCount()).isEqualTo(2);
    // The session was dropped with the uncertain call; a new key works on a new one.
    assertThat(call("t-2", TICKET).status()).isEqualTo(200);
    assertThat(tracker.ticketCount()).isEqualTo(3);
  }
}
