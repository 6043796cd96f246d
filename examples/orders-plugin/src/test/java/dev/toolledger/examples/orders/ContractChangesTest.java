package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.PluginContext;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.examples.orders.OrdersNode.Reply;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a stored key means after the tool changes between deployments: a new contract version or a
 * new name is a conflict (never a replay of an outcome that meant something else), and a removed
 * tool is unknown while its recorded outcomes stay readable until they expire.
 */
class ContractChangesTest {
  static final String ORDER = "{\"sku\":\"BOOK-1\",\"quantity\":2}";

  @TempDir Path dir;

  Supplier<JdbcLedgerStore> database() {
    Path file = dir.resolve("ledger.db");
    return () -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build());
  }

  /** The orders plugin serving {@code tool} (or no tool at all: the tool was removed). */
  static ToolPlugin serving(Optional<Tool> tool) {
    return new ToolPlugin() {
      @Override
      public String name() {
        return "orders";
      }

      @Override
      public void register(PluginContext context) {
        context.tables(OrdersPlugin.TABLES);
        tool.ifPresent(context::tool);
      }
    };
  }

  Reply placeOrderWithVersion1() {
    try (OrdersNode v1 = new OrdersNode(database(), new OrdersPlugin())) {
      Reply first = v1.call("create-order", v1.token("acme"), "order-1", ORDER);
      assertThat(first.status()).isEqualTo(201);
      return first;
    }
  }

  @Test
  void aRetryAfterAVersionBumpIsAConflictNotAReplay() {
    placeOrderWithVersion1();
    try (OrdersNode v2 =
        new OrdersNode(
            database(), serving(Optional.of(new CreateOrderTool("create-order", "2"))))) {
      Reply retry = v2.call("create-order", v2.token("acme"), "order-1", ORDER);
      assertThat(retry.status()).isEqualTo(422);
      assertThat(retry.problemType()).endsWith("/idempotency-key-reused");
      assertThat(v2.orders()).isEqualTo(1);
      assertThat(v2.call("create-order", v2.token("acme"), "order-2", ORDER).status())
          .isEqualTo(201);
    }
  }

  @Test
  void aRetryUnderARenamedToolIsAConflictNotAReplay() {
    placeOrderWithVersion1();
    try (OrdersNode renamed =
        new OrdersNode(database(), serving(Optional.of(new CreateOrderTool("place-order", "1"))))) {
      Reply retry = renamed.call("place-order", renamed.token("acme"), "order-1", ORDER);
      assertThat(retry.status()).isEqualTo(422);
      assertThat(renamed.orders()).isEqualTo(1);
    }
  }

  @Test
  void aRemovedToolIsUnknownButItsRecordsStayReadable() {
    Reply first = placeOrderWithVersion1();
    try (OrdersNode removed = new OrdersNode(database(), serving(Optional.empty()))) {
      String acme = removed.token("acme");
      Reply retry = removed.call("create-order", acme, "order-1", ORDER);
      assertThat(retry.status()).isEqualTo(404);
      assertThat(retry.problemType()).endsWith("/unknown-tool");
      Reply looked = removed.get("/v1/operations/order-1", acme);
      assertThat(looked.status()).isEqualTo(200);
      assertThat(looked.body().path("tool").asText()).isEqualTo("create-order");
      assertThat(looked.body().path("response").toString())
          .contains(first.body().get("orderId").toString());
      assertThat(removed.orders()).isEqualTo(1);
    }
  }
}
