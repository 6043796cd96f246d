package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.embed.CallResult;
import dev.toolledger.embed.ToolLedger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/tools.md's embedding example, run as written: in-process calls, then HTTP beside them. */
class EmbeddedCallsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void anEmbeddedLedgerExecutesOnceAndReplaysInProcess() throws Exception {
    String file = dir.resolve("orders-ledger.db").toString();
    JsonNode params = JSON.readTree("{\"sku\":\"BOOK-1\",\"quantity\":2}");
    TenantId acme = TenantId.of("acme");

    try (ToolLedger ledger = ToolLedger.builder(file).plugin(new OrdersPlugin()).build()) {
      CallResult first = ledger.call(acme, "order-7", "create-order", params);
      CallResult retry = ledger.call(acme, "order-7", "create-order", params);
      CallResult changed =
          ledger.call(
              acme,
              "order-7",
              "create-order",
              JSON.readTree("{\"sku\":\"BOOK-1\",\"quantity\":5}"));

      assertThat(first).isInstanceOf(CallResult.Done.class);
      CallResult.Done done = (CallResult.Done) first;
      assertThat(done.status()).isEqualTo(201);
      assertThat(done.replayed()).isFalse();
      assertThat(retry).isEqualTo(new CallResult.Done(201, done.body(), true));
      assertThat(changed).isEqualTo(new CallResult.Conflict("create-order"));
      assertThat(ledger.httpUri()).isEmpty();
      assertThat(ledger.call(acme, "order-8", "create-order", JSON.readTree("{\"sku\":\"x\"}")))
          .isInstanceOf(CallResult.Invalid.class);
      assertThat(ledger.call(acme, "order-9", "no-such-tool", params))
          .isEqualTo(new CallResult.UnknownTool("no-such-tool"));
    }
  }

  @Test
  void anEmbeddedLedgerCanAlsoServeHttpToAgents() throws Exception {
    String file = dir.resolve("orders-ledger.db").toString();
    try (ToolLedger ledger =
        ToolLedger.builder(file).plugin(new OrdersPlugin()).http("127.0.0.1", 0).build()) {
      String token = ledger.issueToken(TenantId.of("acme"), "agent");
      URI uri = ledger.httpUri().orElseThrow();
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(uri.resolve("/v1/tools/create-order"))
                      .header("Authorization", "Bearer " + token)
                      .header("Idempotency-Key", "order-1")
                      .header("Content-Type", "application/json")
                      .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"PEN\",\"quantity\":1}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(201);

      CallResult inProcess =
          ledger.call(
              TenantId.of("acme"),
              "order-1",
              "create-order",
              JSON.readTree("{\"sku\":\"PEN\",\"quantity\":1}"));
      assertThat(inProcess)
          .isEqualTo(new CallResult.Done(201, JSON.readTree(response.body()), true));
    }
  }
}
