package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.server.Http.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request with several {@code Authorization} headers is refused with {@code 400}, whichever of
 * them is valid, on the HTTP API, the MCP endpoint and the console alike; nothing is recorded.
 */
class SeveralAuthorizationHeadersTest {
  static final String INVALID_AUTHORIZATION =
      "https://toolledger.dev/problems/invalid-authorization";

  @TempDir Path dir;
  Cluster cluster;
  String acme;
  String globex;

  @BeforeEach
  void start() {
    cluster = Cluster.sqlite(dir.resolve("ledger.db"), node -> node);
    acme = cluster.token("acme");
    globex = cluster.token("globex");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  static HttpRequest.Builder twoTokens(URI uri, String first, String second) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + first)
        .header("Authorization", "Bearer " + second);
  }

  static void assertInvalidAuthorization(Reply reply) {
    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.header("Content-Type")).startsWith("application/problem+json");
    assertThat(reply.problemType()).isEqualTo(INVALID_AUTHORIZATION);
    assertThat(reply.header("Idempotent-Replayed")).isNull();
  }

  @Test
  void aToolCallWithTwoAuthorizationHeadersIsRefusedAndRecordsNothing() throws Exception {
    Reply reply =
        Http.send(
            twoTokens(cluster.node(0).resolve("/v1/tools/create-note"), acme, globex)
                .header("Idempotency-Key", "n-1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"milk\"}"))
                .build());

    assertInvalidAuthorization(reply);
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isZero();
  }

  @Test
  void aLookupWithTheSameTokenTwiceIsRefused() {
    Http.createNote(cluster.node(0), acme, "n-1", "{\"title\":\"milk\"}");

    Reply reply =
        Http.send(
            twoTokens(cluster.node(0).resolve("/v1/operations/n-1"), acme, acme).GET().build());

    assertInvalidAuthorization(reply);
  }

  @Test
  void anMcpRequestWithTwoAuthorizationHeadersIsRefusedBeforeTheProtocolStarts() {
    Reply reply =
        Http.send(
            twoTokens(cluster.node(0).resolve("/mcp"), acme, "not-a-token")
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(TokenScopesHttpTest.RAW_INITIALIZE))
                .build());

    assertInvalidAuthorization(reply);
    assertThat(reply.header("Mcp-Session-Id")).isNull();
  }

  @Test
  void theConsoleRefusesTwoOperatorTokens() {
    String operator = cluster.app(0).tokens().issueOperator("console").token();

    Reply reply =
        Http.send(
            twoTokens(cluster.node(0).resolve("/console/api/summary"), operator, operator)
                .GET()
                .build());

    assertInvalidAuthorization(reply);
  }
}
