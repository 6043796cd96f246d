package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.ValidatingProxy.Exchange;
import dev.toolledger.testkit.FailAfterEffect;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The served OpenAPI document against the real server: every request below goes over a socket
 * through {@link ValidatingProxy}, where Vert.x OpenAPI checks the request and the real response
 * against the document the server serves at {@code /openapi.json}. Every response must conform,
 * errors included; a request the test makes wrong on purpose must be one the document already
 * rejects (so the document states the rule the server enforces).
 */
class OpenApiContractTest {
  private static final String TYPE = "https://toolledger.dev/problems/";
  private static final int MAX_REQUEST_BYTES = 4096;

  @TempDir static Path dir;
  static final AtomicBoolean failing = new AtomicBoolean();
  static JdbcLedgerStore store;
  static ToolLedgerApp app;
  static ValidatingProxy proxy;
  static JsonNode document;

  @BeforeAll
  static void start() throws Exception {
    store = JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
    app =
        ToolLedgerApp.builder(store)
            .plugin(NotesPlugin.serving(NotesTool.withQuota(3)))
            .toolDecorator(
                tool ->
                    tool.descriptor().name().equals("create-note")
                        ? new FailAfterEffect((TransactionalTool) tool, failing::get)
                        : tool)
            .engineConfig(
                EngineConfig.builder()
                    // Per tenant: only rateLimitedTenantHears429 starts more than 6.
                    .newOperationLimit(new RateLimit(6, Duration.ofHours(1)))
                    .build())
            .serverConfig(
                ServerConfig.builder()
                    .port(0)
                    .maxRequestBytes(MAX_REQUEST_BYTES)
                    .shutdownGrace(Duration.ZERO)
                    .build())
            .start();
    Reply served = Http.get(app.uri(), "/openapi.json", token("reader", Scopes.tenantAll()));
    assertThat(served.status()).isEqualTo(200);
    document = served.json();
    proxy = ValidatingProxy.start(app.uri(), served.body());
  }

  @AfterAll
  static void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
    if (app != null) {
      app.close();
    }
    if (store != null) {
      store.close();
    }
  }

  @AfterEach
  void everyResponseConformed() {
    for (Exchange exchange : proxy.exchanges()) {
      assertThat(exchange.responseViolation()).as(exchange.toString()).isEmpty();
    }
  }

  private static String token(String tenant, Scopes scopes) {
    return app.tokens().issue(TenantId.of(tenant), scopes, "openapi-test").token();
  }

  private static String token(String tenant) {
    return token(tenant, Scopes.tenantAll());
  }

  private static HttpRequest.Builder request(String path, String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(proxy.uri().resolve(path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request;
  }

  private static HttpRequest.Builder post(String path, String token, String key, String body) {
    HttpRequest.Builder request =
        request(path, token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return request;
  }

  /** Sends a request the document allows; its response must conform too. */
  private static Reply conforming(HttpRequest.Builder request) {
    Reply reply = Http.send(request.build());
    Exchange exchange = proxy.last();
    assertThat(exchange.requestViolation()).as(exchange.toString()).isEmpty();
    assertThat(exchange.responseViolation()).as(exchange.toString()).isEmpty();
    return reply;
  }

  /** Sends a request the document forbids; the server's answer must still conform. */
  private static Reply refusedByTheDocument(HttpRequest.Builder request) {
    Reply reply = Http.send(request.build());
    Exchange exchange = proxy.last();
    assertThat(exchange.requestViolation()).as(exchange.toString()).isPresent();
    assertThat(exchange.responseViolation()).as(exchange.toString()).isEmpty();
    return reply;
  }

  private static void assertProblem(Reply reply, int status, String slug) {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    assertThat(reply.problemType()).isEqualTo(TYPE + slug);
  }

  @Test
  void documentIsOpenApi31WithAnOperationPerToolAndView() {
    assertThat(document.get("openapi").asText()).isEqualTo("3.1.0");
    assertThat(document.at("/paths/~1v1~1tools~1create-note/post/operationId").asText())
        .isEqualTo("callCreateNote");
    assertThat(document.at("/paths/~1v1~1notes/get/operationId").asText()).isEqualTo("readNotes");
    assertThat(document.at("/components/schemas/CreateNoteParameters/properties/title/maxLength"))
        .isEqualTo(Json.mapper().getNodeFactory().numberNode(200));
    List<String> types = new ArrayList<>();
    document.at("/components/schemas/ProblemType/enum").forEach(t -> types.add(t.asText()));
    assertThat(types)
        .containsExactlyElementsOf(
            java.util.Arrays.stream(dev.toolledger.protocol.ProblemType.values())
                .map(t -> t.uri().toString())
                .toList());
  }

  @Test
  void documentServedWithoutATokenShowsNoToolOrView() {
    Reply reply = conforming(request("/openapi.json", null).GET());
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("paths").has("/v1/tools/{tool}")).isTrue();
    assertThat(reply.json().get("paths").has("/v1/tools/create-note")).isFalse();
    assertThat(reply.json().get("paths").has("/v1/notes")).isFalse();
  }

  @Test
  void documentShowsOnlyTheToolsTheTokenMayCall() {
    Reply reply =
        conforming(request("/openapi.json", token("scoped", Scopes.of("tools:other"))).GET());
    assertThat(reply.json().get("paths").has("/v1/tools/{tool}")).isTrue();
    assertThat(reply.json().get("paths").has("/v1/tools/create-note")).isFalse();
    assertThat(reply.json().get("paths").has("/v1/notes")).as("no read scope").isFalse();
  }

  @Test
  void documentWithAnUnknownTokenIs401() {
    assertProblem(conforming(request("/openapi.json", "tl_nope_nope").GET()), 401, "unauthorized");
  }

  @Test
  void firstCallReplayAndConflictConform() {
    String acme = token("acme");
    Reply first =
        conforming(post("/v1/tools/create-note", acme, "op-1", "{\"title\":\"Buy milk\"}"));
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.header("Idempotent-Replayed")).isEqualTo("false");

    Reply replay =
        conforming(post("/v1/tools/create-note", acme, "\"op-1\"", "{\"title\":\"Buy milk\"}"));
    assertThat(replay.status()).isEqualTo(201);
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(replay.body()).isEqualTo(first.body());

    assertProblem(
        conforming(post("/v1/tools/create-note", acme, "op-1", "{\"title\":\"Buy bread\"}")),
        422,
        "idempotency-key-reused");
  }

  @Test
  void lookupAndHistoryConform() {
    String acme = token("lookup");
    conforming(post("/v1/tools/create-note", acme, "look-1", "{\"title\":\"Look me up\"}"));
    Reply found = conforming(request("/v1/operations/look-1", acme).GET());
    assertThat(found.status()).isEqualTo(200);
    assertThat(found.json().get("state").asText()).isEqualTo("COMPLETED");
    assertThat(found.json().at("/response/status").asInt()).isEqualTo(201);

    assertProblem(conforming(request("/v1/operations/never-seen", acme).GET()), 404, "not-found");
    assertProblem(
        refusedByTheDocument(request("/v1/operations/has%20space", acme).GET()),
        400,
        "invalid-idempotency-key");
  }

  @Test
  void giveUpFencesTheKeyAndAResolutionOfACompletedOperationIsRefused() {
    String acme = token("resolver");
    Reply fenced =
        conforming(
            request("/v1/operations/given-up/resolve", acme)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
    assertThat(fenced.status()).isEqualTo(200);
    assertThat(fenced.json().get("resolution").asText()).isEqualTo("fenced");
    assertProblem(
        conforming(post("/v1/tools/create-note", acme, "given-up", "{\"title\":\"Late\"}")),
        409,
        "operation-not-executed");

    conforming(post("/v1/tools/create-note", acme, "done", "{\"title\":\"Done\"}"));
    Reply refused =
        conforming(
            request("/v1/operations/done/resolve", acme)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"checked by hand\"}")));
    assertProblem(refused, 409, "operation-not-resolvable");
    assertThat(refused.json().get("state").asText()).isEqualTo("COMPLETED");

    assertProblem(
        refusedByTheDocument(
            request("/v1/operations/done/resolve", acme)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"resolution\":\"MAYBE\"}"))),
        400,
        "invalid-parameters");
  }

  @Test
  void listOfToolsReadViewAndHealthConform() {
    String acme = token("lister");
    Reply tools = conforming(request("/v1/tools", acme).GET());
    assertThat(tools.json().get("tools")).hasSize(1);
    conforming(post("/v1/tools/create-note", acme, "n-1", "{\"title\":\"Listed\"}"));
    Reply notes = conforming(request("/v1/notes?limit=10", acme).GET());
    assertThat(notes.json().get("notes")).hasSize(1);
    assertProblem(conforming(request("/v1/notes?limit=0", acme).GET()), 400, "invalid-parameters");
    Reply health = conforming(request("/health", null).GET());
    assertThat(health.json().get("status").asText()).isEqualTo("ok");
  }

  @Test
  void missingKeyIsRefusedByTheDocumentAndAnswered400() {
    assertProblem(
        refusedByTheDocument(post("/v1/tools/create-note", token("k"), null, "{\"title\":\"x\"}")),
        400,
        "missing-idempotency-key");
  }

  @Test
  void invalidKeyIsRefusedByTheDocumentAndAnswered400() {
    assertProblem(
        refusedByTheDocument(
            post("/v1/tools/create-note", token("k2"), "has space", "{\"title\":\"x\"}")),
        400,
        "invalid-idempotency-key");
  }

  @Test
  void parametersOutsideTheToolsSchemaAreRefusedByTheDocumentAndAnswered400() {
    Reply reply =
        refusedByTheDocument(post("/v1/tools/create-note", token("p"), "p-1", "{\"title\":\"\"}"));
    assertProblem(reply, 400, "invalid-parameters");
    assertThat(reply.json().at("/errors/0/field").asText()).isEqualTo("/title");
  }

  @Test
  void malformedJsonIsRefusedByTheDocumentAndAnswered400() {
    assertProblem(
        refusedByTheDocument(post("/v1/tools/create-note", token("m"), "m-1", "{\"title\":")),
        400,
        "malformed-json");
  }

  @Test
  void bodyThatIsNotJsonIsRefusedByTheDocumentAndAnswered415() {
    assertProblem(
        refusedByTheDocument(
            request("/v1/tools/create-note", token("t"))
                .header("Idempotency-Key", "t-1")
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("title"))),
        415,
        "unsupported-media-type");
  }

  @Test
  void bodyOverTheLimitIs413() {
    String body = "{\"title\":\"big\",\"body\":\"" + "x".repeat(MAX_REQUEST_BYTES) + "\"}";
    assertProblem(
        conforming(post("/v1/tools/create-note", token("big"), "b-1", body)),
        413,
        "payload-too-large");
  }

  @Test
  void unknownToolIs404ThroughTheGenericOperation() {
    assertProblem(
        conforming(post("/v1/tools/no-such-tool", token("u"), "u-1", "{}")), 404, "unknown-tool");
  }

  @Test
  void missingUnknownAndDuplicatedTokensAreRefused() {
    Reply missing = conforming(post("/v1/tools/create-note", null, "a-1", "{\"title\":\"x\"}"));
    assertProblem(missing, 401, "unauthorized");
    assertThat(missing.header("WWW-Authenticate")).startsWith("Bearer");
    assertProblem(
        conforming(post("/v1/tools/create-note", "tl_x_y", "a-1", "{\"title\":\"x\"}")),
        401,
        "unauthorized");
    assertProblem(
        conforming(
            post("/v1/tools/create-note", token("dup"), "a-1", "{\"title\":\"x\"}")
                .header("Authorization", "Bearer " + token("dup2"))),
        400,
        "invalid-authorization");
  }

  @Test
  void scopesOperatorTokensAndForeignOriginsAreForbidden() {
    String readOnly = token("reader-only", Scopes.of("read"));
    assertProblem(
        conforming(post("/v1/tools/create-note", readOnly, "f-1", "{\"title\":\"x\"}")),
        403,
        "forbidden");
    String toolsOnly = token("tools-only", Scopes.of("tools:create-note"));
    assertProblem(conforming(request("/v1/operations/f-1", toolsOnly).GET()), 403, "forbidden");
    assertProblem(
        conforming(request("/v1/tools", app.tokens().issueOperator("op").token()).GET()),
        403,
        "forbidden");
    assertProblem(
        conforming(
            post("/v1/tools/create-note", token("origin"), "o-1", "{\"title\":\"x\"}")
                .header("Origin", "https://evil.example")),
        403,
        "forbidden-origin");
  }

  @Test
  void recordedBusinessErrorIsReplayedWithItsOwnType() {
    String quota = token("quota");
    for (int i = 1; i <= 3; i++) {
      conforming(post("/v1/tools/create-note", quota, "q-" + i, "{\"title\":\"n" + i + "\"}"));
    }
    Reply refused =
        conforming(post("/v1/tools/create-note", quota, "q-4", "{\"title\":\"one too many\"}"));
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.problemType()).isEqualTo(NotesTool.QUOTA_EXCEEDED);
    assertThat(refused.header("Idempotent-Replayed")).isEqualTo("false");
    Reply replayed =
        conforming(post("/v1/tools/create-note", quota, "q-4", "{\"title\":\"one too many\"}"));
    assertThat(replayed.header("Idempotent-Replayed")).isEqualTo("true");
  }

  @Test
  void toolThatThrowsIs500AndNothingIsRecorded() {
    String acme = token("failing");
    failing.set(true);
    try {
      assertProblem(
          conforming(post("/v1/tools/create-note", acme, "x-1", "{\"title\":\"x\"}")),
          500,
          "tool-failed");
    } finally {
      failing.set(false);
    }
    assertThat(conforming(post("/v1/tools/create-note", acme, "x-1", "{\"title\":\"x\"}")).status())
        .isEqualTo(201);
  }

  @Test
  void rateLimitedTenantHears429WithRetryAfter() {
    String busy = token("busy");
    Reply reply = null;
    for (int i = 0; i < 7; i++) {
      reply = conforming(post("/v1/tools/create-note", busy, "r-" + i, "{\"title\":\"r\"}"));
    }
    assertProblem(reply, 429, "rate-limited");
    assertThat(reply.header("Retry-After")).isNotBlank();
  }

  @Test
  void proxyPassesRequestsOnUnchanged() {
    // The proxy must not hide anything: the same request straight to the server answers alike.
    String acme = token("direct");
    Reply viaProxy = conforming(request("/v1/tools", acme).GET());
    Reply direct = Http.get(app.uri(), "/v1/tools", acme);
    assertThat(viaProxy.status()).isEqualTo(direct.status());
    assertThat(viaProxy.body()).isEqualTo(direct.body());
    assertThat(URI.create(proxy.uri().toString()).getPort()).isNotEqualTo(app.uri().getPort());
  }
}
