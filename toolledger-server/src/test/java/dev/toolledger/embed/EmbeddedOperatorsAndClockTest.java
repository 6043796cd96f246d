package dev.toolledger.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.ReadContext;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding builder's operators, metrics access, clock and read views, seen over the ledger's
 * own HTTP listener.
 */
class EmbeddedOperatorsAndClockTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final TenantId ACME = TenantId.of("acme");
  static final String SECRET = "an-operator-secret-of-the-app";
  static final Instant THEN = Instant.parse("2031-05-06T07:08:09Z");

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newHttpClient();

  private ToolLedger.Builder notes() {
    return ToolLedger.builder(dir.resolve("ledger.db").toString())
        .plugin(new NotesPlugin())
        .http("127.0.0.1", 0);
  }

  private HttpResponse<String> get(URI uri, String path, String bearer, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri.resolve(path)).GET();
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> consoleOperation(ToolLedger ledger, String bearer) throws Exception {
    return get(
        ledger.httpUri().orElseThrow(),
        "/console/api/operations?tenant=acme",
        bearer,
        Map.of("Operation-Key", "n-1"));
  }

  @Test
  void anInjectedClockDatesTheRecordedOperation() throws Exception {
    try (ToolLedger ledger =
        notes().clock(Clock.fixed(THEN, ZoneOffset.UTC)).operatorSecret(SECRET).build()) {
      ledger.call(ACME, "n-1", "create-note", JSON.readTree("{\"title\":\"dated\"}"));

      HttpResponse<String> found = consoleOperation(ledger, SECRET);

      assertThat(found.statusCode()).isEqualTo(200);
      assertThat(found.body()).contains("\"createdAt\":\"" + THEN + "\"");
    }
  }

  @Test
  void theOperatorSecretOpensTheConsoleAndNothingElseDoes() throws Exception {
    try (ToolLedger ledger = notes().operatorSecret(SECRET).build()) {
      ledger.call(ACME, "n-1", "create-note", JSON.readTree("{\"title\":\"a\"}"));
      String tenantToken = ledger.issueToken(ACME, "agent");

      assertThat(consoleOperation(ledger, SECRET).statusCode()).isEqualTo(200);
      assertThat(consoleOperation(ledger, null).statusCode()).isEqualTo(401);
      assertThat(consoleOperation(ledger, tenantToken).statusCode()).isIn(401, 403);
      assertThat(consoleOperation(ledger, SECRET + "x").statusCode()).isEqualTo(401);
    }
  }

  @Test
  void anIssuedOperatorTokenOpensTheConsoleWithoutASecret() throws Exception {
    try (ToolLedger ledger = notes().build()) {
      ledger.call(ACME, "n-1", "create-note", JSON.readTree("{\"title\":\"a\"}"));
      String operator = ledger.issueOperatorToken("ops");

      HttpResponse<String> found = consoleOperation(ledger, operator);
      HttpResponse<String> api =
          get(ledger.httpUri().orElseThrow(), "/v1/operations/n-1", operator, Map.of());

      assertThat(found.statusCode()).isEqualTo(200);
      assertThat(found.body()).contains("create-note");
      assertThat(api.statusCode()).isIn(401, 403);
    }
  }

  @Test
  void metricsForOperatorsOnlyRefuseALoopbackClientWithoutTheSecret() throws Exception {
    try (ToolLedger ledger =
        notes().operatorSecret(SECRET).metricsAccess(MetricsAccess.OPERATOR).build()) {
      URI uri = ledger.httpUri().orElseThrow();

      assertThat(get(uri, "/metrics", null, Map.of()).statusCode()).isEqualTo(401);
      HttpResponse<String> scraped = get(uri, "/metrics", SECRET, Map.of());
      assertThat(scraped.statusCode()).isEqualTo(200);
      assertThat(scraped.body()).contains("# TYPE");
    }
  }

  @Test
  void metricsAreServedToALoopbackClientByDefaultAndNotAtAllWhenOff() throws Exception {
    try (ToolLedger ledger = notes().build()) {
      assertThat(get(ledger.httpUri().orElseThrow(), "/metrics", null, Map.of()).statusCode())
          .isEqualTo(200);
    }
    try (ToolLedger ledger = notes().metricsAccess(MetricsAccess.OFF).build()) {
      // An ordinary unknown path: not found for a tenant, unauthenticated without a token.
      String tenant = ledger.issueToken(ACME, "agent");
      assertThat(get(ledger.httpUri().orElseThrow(), "/metrics", tenant, Map.of()).statusCode())
          .isEqualTo(404);
      assertThat(get(ledger.httpUri().orElseThrow(), "/metrics", null, Map.of()).statusCode())
          .isEqualTo(401);
    }
  }

  @Test
  void anOperatorSecretShorterThanSixteenCharactersIsRejectedNamingTheOption() {
    assertThatThrownBy(() -> notes().operatorSecret("short"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operatorSecret")
        .hasMessageContaining("16");
  }

  @Test
  void aReadViewIsServedToTheCallingTenant() throws Exception {
    ReadView whoAmI =
        new ReadView() {
          @Override
          public String path() {
            return "who-am-i";
          }

          @Override
          public JsonNode read(ReadContext context, Map<String, String> query) {
            return JSON.createObjectNode().put("tenant", context.tenant().value());
          }
        };
    try (ToolLedger ledger = notes().readView(whoAmI).build()) {
      HttpResponse<String> read =
          get(
              ledger.httpUri().orElseThrow(),
              "/v1/who-am-i",
              ledger.issueToken(ACME, "agent"),
              Map.of());

      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(read.body()).path("tenant").asText()).isEqualTo("acme");
    }
  }
}
