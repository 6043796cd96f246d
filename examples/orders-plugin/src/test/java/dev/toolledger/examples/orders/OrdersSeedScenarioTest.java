package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.examples.orders.OrdersNode.Reply;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The seed's scenario against a tool a team wrote itself with the public API only ({@code
 * create-order} on its own {@code orders} table), served by an embedded node over real HTTP. Each
 * database supplies only its store.
 */
abstract class OrdersSeedScenarioTest {
  static final String ORDER = "{\"sku\":\"BOOK-1\",\"quantity\":2}";

  OrdersNode node;
  String acme;

  /** Opens the store on the same database every time it is called (for the restart). */
  abstract Supplier<JdbcLedgerStore> database();

  @BeforeEach
  void start() {
    node = new OrdersNode(database(), new OrdersPlugin());
    acme = node.token("acme");
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void firstCallPlacesTheOrderAndItsRetryReplaysIt() {
    Reply first = node.call("create-order", acme, "order-1", ORDER);
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.replayed()).isFalse();

    Reply retry = node.call("create-order", acme, "order-1", ORDER);
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.replayed()).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(node.orders()).isEqualTo(1);
  }

  @Test
  void aResponseLostAfterTheCommitIsRecoveredByARetryThatReplaysTheOrder() throws Exception {
    try (LossyProxy network =
        LossyProxy.start(node.uri(), DropPolicy.next(1, DropPolicy.posts()))) {
      assertThatThrownBy(() -> node.callVia(network.uri(), "create-order", acme, "order-1", ORDER))
          .isInstanceOf(UncheckedIOException.class);
      assertThat(network.dropped()).as("responses the server sent and the caller lost").isOne();
      assertThat(node.orders()).as("committed although the caller heard nothing").isEqualTo(1);

      Reply retry = node.callVia(network.uri(), "create-order", acme, "order-1", ORDER);

      assertThat(retry.status()).isEqualTo(201);
      assertThat(retry.replayed()).isTrue();
      long orderId = node.count("SELECT id FROM orders");
      assertThat(retry.body())
          .isEqualTo(
              new ObjectMapper()
                  .readTree("{\"orderId\":" + orderId + ",\"sku\":\"BOOK-1\",\"quantity\":2}"));
      assertThat(node.orders()).isEqualTo(1);
      assertThat(node.operations()).isEqualTo(1);
      assertThat(network.forwarded()).isOne();
    }
  }

  @Test
  void theLookupShowsToolVersionStateResponseHistoryAndTheToolsOwnRetention() {
    Reply placed = node.call("create-order", acme, "order-1", ORDER);

    Reply looked = node.get("/v1/operations/order-1", acme);

    assertThat(looked.status()).isEqualTo(200);
    JsonNode operation = looked.body();
    assertThat(operation.path("key").asText()).isEqualTo("order-1");
    assertThat(operation.path("tool").asText()).isEqualTo("create-order");
    assertThat(operation.path("toolVersion").asText()).isEqualTo("1");
    assertThat(operation.path("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.at("/response/status").asInt()).isEqualTo(201);
    assertThat(operation.at("/response/body")).isEqualTo(placed.body());
    Instant completedAt = Instant.parse(operation.path("completedAt").asText());
    assertThat(Instant.parse(operation.path("expiresAt").asText()))
        .as("create-order declares a retention of 30 days")
        .isEqualTo(completedAt.plus(Duration.ofDays(30)));
    JsonNode history = operation.path("history");
    assertThat(history).hasSize(1);
    assertThat(history.get(0).path("from").isNull()).isTrue();
    assertThat(history.get(0).path("to").asText()).isEqualTo("COMPLETED");
    assertThat(history.get(0).path("actor").asText()).isEqualTo("engine");
    assertThat(history.get(0).path("cause").asText()).contains("one transaction");
    assertThat(Instant.parse(history.get(0).path("at").asText())).isEqualTo(completedAt);

    Reply replayed = node.call("create-order", acme, "order-1", ORDER);
    assertThat(replayed.replayed()).isTrue();
    assertThat(node.get("/v1/operations/order-1", acme).body())
        .as("a replay changes nothing in the record")
        .isEqualTo(operation);
    assertThat(node.get("/v1/operations/order-2", acme).status()).isEqualTo(404);
  }

  @Test
  void theSameKeyWithOtherParametersIsAConflictAndPlacesNothing() {
    node.call("create-order", acme, "order-1", ORDER);
    Reply changed =
        node.call("create-order", acme, "order-1", "{\"sku\":\"BOOK-1\",\"quantity\":3}");
    assertThat(changed.status()).isEqualTo(422);
    assertThat(changed.problemType()).endsWith("/idempotency-key-reused");
    assertThat(node.orders()).isEqualTo(1);
  }

  @Test
  void aNewKeyWithTheSameContentIsANewOrder() {
    node.call("create-order", acme, "order-1", ORDER);
    Reply second = node.call("create-order", acme, "order-2", ORDER);
    assertThat(second.status()).isEqualTo(201);
    assertThat(second.replayed()).isFalse();
    assertThat(node.orders()).isEqualTo(2);
  }

  @Test
  void anotherTenantsKeyNamesAnotherOperation() {
    Reply mine = node.call("create-order", acme, "order-1", ORDER);
    Reply theirs = node.call("create-order", node.token("globex"), "order-1", ORDER);
    assertThat(theirs.status()).isEqualTo(201);
    assertThat(theirs.replayed()).isFalse();
    assertThat(theirs.body().get("orderId")).isNotEqualTo(mine.body().get("orderId"));
    assertThat(node.orders()).isEqualTo(2);
  }

  @Test
  void aBusinessErrorIsRecordedAndReplayedWithoutAnOrder() {
    String discontinued = "{\"sku\":\"DISCONTINUED-7\",\"quantity\":1}";
    Reply refused = node.call("create-order", acme, "order-1", discontinued);
    assertThat(refused.status()).isEqualTo(422);
    Reply again = node.call("create-order", acme, "order-1", discontinued);
    assertThat(again.replayed()).isTrue();
    assertThat(again.body()).isEqualTo(refused.body());
    assertThat(node.orders()).isZero();
  }

  @Test
  void invalidParametersAreRefusedBeforeAnythingRuns() {
    Reply bad = node.call("create-order", acme, "order-1", "{\"sku\":\"BOOK-1\",\"quantity\":0}");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.problemType()).endsWith("/invalid-parameters");
    assertThat(node.orders()).isZero();
    assertThat(node.call("create-order", acme, "order-1", ORDER).status()).isEqualTo(201);
  }

  @Test
  void aRestartedNodeStillReplays() {
    Reply first = node.call("create-order", acme, "order-1", ORDER);
    node.close();
    node = new OrdersNode(database(), new OrdersPlugin());
    Reply retry = node.call("create-order", acme, "order-1", ORDER);
    assertThat(retry.replayed()).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(node.orders()).isEqualTo(1);
  }

  @Test
  void theToolIsListedWithItsSchemaAndTheLedgerKnowsItsOperations() {
    Reply tools = node.get("/v1/tools", acme);
    assertThat(tools.body().toString()).contains("create-order").contains("\"quantity\"");
    node.call("create-order", acme, "order-1", ORDER);
    Reply looked = node.get("/v1/operations/order-1", acme);
    assertThat(looked.status()).isEqualTo(200);
    assertThat(looked.body().path("tool").asText()).isEqualTo("create-order");
    assertThat(looked.body().path("state").asText()).isEqualTo("COMPLETED");
  }
}
