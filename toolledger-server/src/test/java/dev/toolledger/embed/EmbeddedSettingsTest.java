package dev.toolledger.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's and the engine's settings as the embedding builder takes them, on a real SQLite file
 * and, for what only the record shows, over real HTTP.
 */
class EmbeddedSettingsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  private ToolLedger.Builder notes() {
    return ToolLedger.builder(dir.resolve("ledger.db").toString()).plugin(new NotesPlugin());
  }

  private static JsonNode title(String title) throws Exception {
    return JSON.readTree("{\"title\":\"" + title + "\"}");
  }

  @Test
  void newOperationLimitRefusesANewKeyPastTheLimitButStillReplays() throws Exception {
    try (ToolLedger ledger = notes().newOperationLimit(1, Duration.ofHours(1)).build()) {
      CallResult first = ledger.call(ACME, "n-1", "create-note", title("a"));
      CallResult second = ledger.call(ACME, "n-2", "create-note", title("b"));
      CallResult replay = ledger.call(ACME, "n-1", "create-note", title("a"));

      assertThat(first).isInstanceOf(CallResult.Done.class);
      assertThat(second).isInstanceOf(CallResult.RetryLater.class);
      assertThat(((CallResult.RetryLater) second).reason()).isEqualTo("too many new operations");
      assertThat(replay).isInstanceOf(CallResult.Done.class);
      assertThat(((CallResult.Done) replay).replayed()).isTrue();
    }
  }

  @Test
  void aZeroNewOperationLimitLetsEveryKeyThrough() throws Exception {
    try (ToolLedger ledger = notes().newOperationLimit(0, Duration.ofSeconds(1)).build()) {
      for (int i = 0; i < 5; i++) {
        assertThat(ledger.call(ACME, "n-" + i, "create-note", title("t" + i)))
            .isInstanceOf(CallResult.Done.class);
      }
    }
  }

  @Test
  void aNewOperationLimitThatIsNoRateIsRejectedWhenSet() {
    assertThatThrownBy(() -> notes().newOperationLimit(-1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("newOperationLimit");
    assertThatThrownBy(() -> notes().newOperationLimit(5, Duration.ofDays(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("newOperationLimit")
        .hasMessageContaining("at most a day");
  }

  @Test
  void aSharedRateLimitIsRefusedOnSqlite() {
    assertThatThrownBy(() -> notes().sharedRateLimit(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs PostgreSQL");
  }

  @Test
  void aNegativeRecoveryIntervalIsRejectedAtBuildNamingTheOption() {
    ToolLedger.Builder builder = notes().recoveryInterval(Duration.ofSeconds(-1));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recoveryInterval");
  }

  @Test
  void mcpEnabledFalseServesTheApiButNotMcp() throws Exception {
    try (ToolLedger ledger = notes().http("127.0.0.1", 0).mcpEnabled(false).build()) {
      URI uri = ledger.httpUri().orElseThrow();
      String token = ledger.issueToken(ACME, "agent");
      HttpClient http = HttpClient.newHttpClient();

      HttpResponse<String> mcp =
          http.send(
              HttpRequest.newBuilder(uri.resolve("/mcp"))
                  .header("Authorization", "Bearer " + token)
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> api =
          http.send(
              HttpRequest.newBuilder(uri.resolve("/v1/tools/create-note"))
                  .header("Authorization", "Bearer " + token)
                  .header("Idempotency-Key", "n-1")
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"a\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(mcp.statusCode()).isEqualTo(404);
      assertThat(api.statusCode()).isEqualTo(201);
    }
  }

  @Test
  void aToolsRetentionSetOnTheBuilderIsTheRecordsExpiry() throws Exception {
    try (ToolLedger ledger =
        notes()
            .retention("create-note", Duration.ofHours(3))
            .http("127.0.0.1", 0)
            .mcpEnabled(false)
            .build()) {
      assertThat(ledger.call(ACME, "n-1", "create-note", title("a")))
          .isInstanceOf(CallResult.Done.class);
      URI uri = ledger.httpUri().orElseThrow();
      String token = ledger.issueToken(ACME, "reader");

      HttpResponse<String> looked =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(uri.resolve("/v1/operations/n-1"))
                      .header("Authorization", "Bearer " + token)
                      .build(),
                  HttpResponse.BodyHandlers.ofString());

      assertThat(looked.statusCode()).isEqualTo(200);
      JsonNode operation = JSON.readTree(looked.body());
      Instant completedAt = Instant.parse(operation.path("completedAt").asText());
      assertThat(Instant.parse(operation.path("expiresAt").asText()))
          .isEqualTo(completedAt.plus(Duration.ofHours(3)));
    }
  }

  @Test
  void aRetentionForAToolTheLedgerDoesNotServeStopsTheBuild() {
    ToolLedger.Builder builder = notes().retention("send-email", Duration.ofDays(1));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("send-email");
  }

  @Test
  void aResponseLargerThanMaxResponseBytesIsRefusedAndTheKeyStaysFree() throws Exception {
    try (ToolLedger ledger = notes().maxResponseBytes(8).build()) {
      CallResult tooLarge = ledger.call(ACME, "n-1", "create-note", title("a"));

      assertThat(tooLarge).isInstanceOf(CallResult.TooLarge.class);
      assertThat(((CallResult.TooLarge) tooLarge).limit()).isEqualTo(8);
    }
    try (ToolLedger ledger = notes().build()) {
      CallResult again = ledger.call(ACME, "n-1", "create-note", title("a"));
      assertThat(again).isInstanceOf(CallResult.Done.class);
      assertThat(((CallResult.Done) again).replayed())
          .as("nothing was recorded under the key the first time")
          .isFalse();
    }
  }

  @Test
  void badEngineValuesAreRejectedAtBuildNamingTheOption() {
    assertThatThrownBy(notes().tombstoneWindow(Duration.ofSeconds(-1))::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tombstoneWindow");
    assertThatThrownBy(notes().maxWait(Duration.ofSeconds(-1))::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxWait");
    assertThatThrownBy(notes().maxResponseBytes(0)::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxResponseBytes");
    assertThatThrownBy(notes().maxTakeovers(0)::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxTakeovers");
    assertThatThrownBy(notes().retention("create-note", Duration.ZERO)::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retention");
  }
}
