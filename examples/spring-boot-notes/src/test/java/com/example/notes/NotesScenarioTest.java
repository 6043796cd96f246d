package com.example.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The seed's scenario against the example application as users run it: Spring Boot 3.5.7 with
 * Boot's versions, embedded Tomcat on a random port, the starter mounting the ledger under {@code
 * /toolledger}, the tool writing through the application's {@link JdbcTemplate}. Subclasses only
 * choose the database.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"notes.print-demo-token=false", "toolledger.sweep-interval=0s"})
@Import(NotesScenarioTest.TestTools.class)
abstract class NotesScenarioTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String PROBLEMS = "https://toolledger.dev/problems/";

  @TestConfiguration(proxyBeanMethods = false)
  static class TestTools {
    @Bean
    FailAfterInsertTool failAfterInsertTool(JdbcTemplate jdbc) throws Exception {
      return new FailAfterInsertTool(jdbc);
    }

    @Bean
    NoteWriter noteWriter(JdbcTemplate jdbc) {
      return new NoteWriter(jdbc);
    }

    @Bean
    ServiceTool serviceTool(NoteWriter writer) throws Exception {
      return new ServiceTool(writer);
    }
  }

  @LocalServerPort int port;
  @Autowired ToolLedger ledger;
  @Autowired JdbcTemplate jdbc;

  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  String token;
  String run;

  @BeforeEach
  void tenantOfThisTest() {
    run = UUID.randomUUID().toString().substring(0, 8);
    token = ledger.issueToken(TenantId.of("acme"), "spring boot test");
  }

  URI base() {
    return URI.create("http://127.0.0.1:" + port);
  }

  HttpResponse<String> post(URI base, String tool, String key, String json)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve("/toolledger/v1/tools/" + tool))
            .timeout(Duration.ofSeconds(20))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> createNote(String key, String title) throws Exception {
    return post(base(), "create-note", key, note(title));
  }

  static String note(String title) {
    return "{\"title\":\"" + title + "\",\"body\":\"from the scenario\"}";
  }

  HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base().resolve(path))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  int notesTitled(String title) {
    return jdbc.queryForObject(
        "SELECT COUNT(*) FROM app_notes WHERE title = ?", Integer.class, title);
  }

  static String replayed(HttpResponse<String> response) {
    return response.headers().firstValue("Idempotent-Replayed").orElse("(absent)");
  }

  static JsonNode body(HttpResponse<String> response) throws IOException {
    return JSON.readTree(response.body());
  }

  @Test
  void aCallCreatesTheNoteAndItsRecordAndARetryReplaysIt() throws Exception {
    String title = "first " + run;
    HttpResponse<String> first = createNote("k1-" + run, title);
    HttpResponse<String> retry = createNote("k1-" + run, title);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(replayed(first)).isEqualTo("false");
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(replayed(retry)).isEqualTo("true");
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(notesTitled(title)).isEqualTo(1);
    HttpResponse<String> record = get("/toolledger/v1/operations/k1-" + run);
    assertThat(record.statusCode()).isEqualTo(200);
    assertThat(body(record).path("state").asText()).isEqualTo("COMPLETED");
  }

  @Test
  void aRetryAfterALostResponseGetsTheReplayAndNoSecondNote() throws Exception {
    String title = "lost " + run;
    try (LossyProxy lossy = LossyProxy.start(base(), DropPolicy.next(1, DropPolicy.posts()))) {
      assertThatThrownBy(() -> post(lossy.uri(), "create-note", "k2-" + run, note(title)))
          .isInstanceOf(IOException.class);
      assertThat(notesTitled(title)).isEqualTo(1);

      HttpResponse<String> retry = post(lossy.uri(), "create-note", "k2-" + run, note(title));

      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(replayed(retry)).isEqualTo("true");
      assertThat(body(retry).path("title").asText()).isEqualTo(title);
      assertThat(notesTitled(title)).isEqualTo(1);
      assertThat(lossy.dropped()).isEqualTo(1);
    }
  }

  @Test
  void theSameKeyWithAnotherTitleIsAConflictAndChangesNothing() throws Exception {
    String title = "original " + run;
    createNote("k3-" + run, title);

    HttpResponse<String> conflict = createNote("k3-" + run, "changed " + run);

    assertThat(conflict.statusCode()).isEqualTo(422);
    assertThat(conflict.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(body(conflict).path("type").asText()).isEqualTo(PROBLEMS + "idempotency-key-reused");
    assertThat(notesTitled(title)).isEqualTo(1);
    assertThat(notesTitled("changed " + run)).isZero();
  }

  @Test
  void aNewKeyWithIdenticalContentIsANewNote() throws Exception {
    String title = "twice " + run;
    HttpResponse<String> first = createNote("k4a-" + run, title);
    HttpResponse<String> second = createNote("k4b-" + run, title);

    assertThat(second.statusCode()).isEqualTo(201);
    assertThat(replayed(second)).isEqualTo("false");
    assertThat(body(second).path("id")).isNotEqualTo(body(first).path("id"));
    assertThat(notesTitled(title)).isEqualTo(2);
  }

  @Test
  void concurrentDuplicatesMakeOneNote() throws Exception {
    String title = "concurrent " + run;
    int callers = 8;
    CyclicBarrier start = new CyclicBarrier(callers);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(
            pool.submit(
                () -> {
                  start.await();
                  return createNote("k5-" + run, title);
                }));
      }
      int executed = 0;
      for (Future<HttpResponse<String>> call : calls) {
        HttpResponse<String> response = call.get();
        // A duplicate either waited for the first and got its replay, or was told to retry.
        assertThat(response.statusCode()).isIn(201, 409);
        if (response.statusCode() == 201 && replayed(response).equals("false")) {
          executed++;
        }
      }
      assertThat(executed).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(notesTitled(title)).isEqualTo(1);
  }

  @Test
  void anExceptionAfterTheJdbcTemplateInsertLeavesNeitherTheNoteNorTheRecord() throws Exception {
    String title = "rolled back " + run;

    HttpResponse<String> failed =
        post(base(), FailAfterInsertTool.NAME, "k6-" + run, "{\"title\":\"" + title + "\"}");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(body(failed).path("type").asText()).isEqualTo(PROBLEMS + "tool-failed");
    assertThat(notesTitled(title)).isZero();
    assertThat(get("/toolledger/v1/operations/k6-" + run).statusCode()).isEqualTo(404);
  }

  HttpResponse<String> viaService(String key, String title, String mode) throws Exception {
    return post(
        base(), ServiceTool.NAME, key, "{\"title\":\"" + title + "\",\"mode\":\"" + mode + "\"}");
  }

  @Test
  void aTransactionalServiceCalledByTheToolCommitsWithTheRecordAndIsNotRunAgainOnReplay()
      throws Exception {
    String title = "service " + run;
    HttpResponse<String> first = viaService("k10-" + run, title, "ok");
    HttpResponse<String> replay = viaService("k10-" + run, title, "ok");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(replayed(replay)).isEqualTo("true");
    assertThat(notesTitled(title)).isEqualTo(1);
  }

  @Test
  void aTransactionalServiceDoesNotCommitOnItsOwnWhenTheToolFailsAfterIt() throws Exception {
    String title = "service rolled back " + run;

    HttpResponse<String> failed = viaService("k11-" + run, title, "fail-after");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(notesTitled(title)).isZero();
    assertThat(get("/toolledger/v1/operations/k11-" + run).statusCode()).isEqualTo(404);
  }

  @Test
  void aRollbackOnlyMarkFromTheServiceFailsTheCallEvenWhenTheToolSwallowsTheException()
      throws Exception {
    String title = "service marked " + run;

    HttpResponse<String> failed = viaService("k12-" + run, title, "swallow");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(body(failed).path("type").asText()).isEqualTo(PROBLEMS + "tool-failed");
    assertThat(notesTitled(title)).isZero();
    assertThat(get("/toolledger/v1/operations/k12-" + run).statusCode()).isEqualTo(404);
  }

  @Test
  void anMcpCallThroughTheMountedPathCreatesTheNoteAndItsRetryReplays() throws Exception {
    String title = "mcp " + run;
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(base().toString())
            .endpoint("/toolledger/mcp")
            .addHttpRequestCustomizer(
                (request, method, endpoint, body, context) ->
                    request.header("Authorization", "Bearer " + token))
            .build();
    try (McpSyncClient agent =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(30))
            .build()) {
      agent.initialize();
      assertThat(agent.listTools().tools())
          .extracting(io.modelcontextprotocol.spec.McpSchema.Tool::name)
          .contains("create-note", "get-operation");
      CallToolRequest call =
          CallToolRequest.builder("create-note")
              .arguments(Map.of("title", title))
              .meta(Map.of("dev.toolledger/operation-key", "k7-" + run))
              .build();

      CallToolResult first = agent.callTool(call);
      CallToolResult retry = agent.callTool(call);

      assertThat(first.isError()).isFalse();
      assertThat(first.meta()).containsEntry("dev.toolledger/replayed", false);
      assertThat(retry.meta()).containsEntry("dev.toolledger/replayed", true);
      assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
    }
    assertThat(notesTitled(title)).isEqualTo(1);
  }

  @Test
  void actuatorShowsTheLedgerHealthyAndItsMetersInTheApplicationsRegistry() throws Exception {
    double effectsBefore = measured("/actuator/metrics/toolledger.effects?tag=tool:create-note");
    double requestsBefore =
        measured("/actuator/metrics/toolledger.requests?tag=tool:create-note&tag=outcome:executed");
    createNote("k8-" + run, "metered " + run);
    assertThat(measured("/actuator/metrics/toolledger.effects?tag=tool:create-note"))
        .as("one effect is counted once in the application's registry")
        .isEqualTo(effectsBefore + 1.0);
    assertThat(
            measured(
                "/actuator/metrics/toolledger.requests?tag=tool:create-note&tag=outcome:executed"))
        .as("one request is counted once in the application's registry")
        .isEqualTo(requestsBefore + 1.0);

    HttpResponse<String> health = get("/actuator/health");
    HttpResponse<String> effects = get("/actuator/metrics/toolledger.effects");
    HttpResponse<String> requests = get("/actuator/metrics/toolledger.requests");

    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(body(health).path("components").path("toolLedger").path("status").asText())
        .isEqualTo("UP");
    assertThat(effects.statusCode()).isEqualTo(200);
    assertThat(body(effects).path("measurements").get(0).path("value").asDouble())
        .isGreaterThanOrEqualTo(1.0);
    assertThat(requests.statusCode()).isEqualTo(200);
  }

  /** The first measurement of an Actuator metric; 0 while the meter does not exist yet. */
  private double measured(String path) throws Exception {
    HttpResponse<String> metric = get(path);
    return metric.statusCode() == 404
        ? 0.0
        : body(metric).path("measurements").get(0).path("value").asDouble();
  }

  @Test
  void aCallWithoutATokenIsRefusedWithAProblemDocument() throws Exception {
    HttpResponse<String> refused =
        http.send(
            HttpRequest.newBuilder(base().resolve("/toolledger/v1/tools/create-note"))
                .header("Idempotency-Key", "k9-" + run)
                .POST(HttpRequest.BodyPublishers.ofString(note("nope " + run)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(body(refused).path("type").asText()).isEqualTo(PROBLEMS + "unauthorized");
    assertThat(notesTitled("nope " + run)).isZero();
  }
}
