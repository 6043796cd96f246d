package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.examples.orders.OrdersNode.Reply;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.mcp.McpConventions;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token scopes name the team's tool like any other: {@code tools:create-order} may call it, a token
 * for another tool is refused before anything is recorded, a first call and a replay alike.
 */
class OrdersTokenScopesTest {
  static final String FORBIDDEN = "https://toolledger.dev/problems/forbidden";
  static final String ORDER = OrdersSeedScenarioTest.ORDER;

  @TempDir Path dir;
  OrdersNode node;

  @BeforeEach
  void start() {
    Path file = dir.resolve("ledger.db");
    node =
        new OrdersNode(
            () -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build()), new OrdersPlugin());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  static void assertForbidden(Reply reply) {
    assertThat(reply.status()).isEqualTo(403);
    assertThat(reply.problemType()).isEqualTo(FORBIDDEN);
    assertThat(reply.replayed()).isFalse();
  }

  @Test
  void aTokenLimitedToCreateOrderPlacesOrdersAndReplaysThem() {
    String ordersOnly = node.token("acme", "tools:create-order");

    Reply first = node.call("create-order", ordersOnly, "order-1", ORDER);
    Reply retry = node.call("create-order", ordersOnly, "order-1", ORDER);

    assertThat(first.status()).isEqualTo(201);
    assertThat(first.replayed()).isFalse();
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.replayed()).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(node.orders()).isEqualTo(1);
  }

  @Test
  void aTokenLimitedToAnotherToolIsForbiddenAndNothingIsWritten() {
    for (String scope : new String[] {"tools:create-note", "tools:other"}) {
      Reply refused = node.call("create-order", node.token("acme", scope), "order-1", ORDER);

      assertForbidden(refused);
      assertThat(refused.body().path("detail").asText()).as(scope).contains("create-order");
    }
    assertThat(node.orders()).isZero();
    assertThat(node.operations()).isZero();
    Reply stillFree = node.call("create-order", node.token("acme"), "order-1", ORDER);
    assertThat(stillFree.status()).as("nothing was recorded under the key").isEqualTo(201);
    assertThat(stillFree.replayed()).isFalse();
  }

  @Test
  void aReplayNeedsTheCreateOrderScopeAsMuchAsAFirstCall() {
    Reply placed = node.call("create-order", node.token("acme"), "order-1", ORDER);

    Reply replayByOther =
        node.call("create-order", node.token("acme", "tools:create-note"), "order-1", ORDER);

    assertThat(placed.status()).isEqualTo(201);
    assertForbidden(replayByOther);
    assertThat(replayByOther.body().toString()).doesNotContain("orderId");
    assertThat(node.orders()).isEqualTo(1);
    assertThat(node.operations()).isEqualTo(1);
  }

  @Test
  void toolsListsCreateOrderOnlyToTokensThatMayCallIt() {
    assertThat(names(node.get("/v1/tools", node.token("acme", "tools:create-order")).body()))
        .containsExactly("create-order");
    assertThat(names(node.get("/v1/tools", node.token("acme", "tools:other")).body())).isEmpty();
  }

  @Test
  void overMcpAnotherToolsTokenDoesNotSeeCreateOrderAndItsCallIsAForbiddenToolError() {
    McpSyncClient ordersOnly = node.mcpClient(node.token("acme", "tools:create-order"));
    McpSyncClient notesOnly = node.mcpClient(node.token("acme", "tools:create-note"));

    assertThat(ordersOnly.listTools().tools())
        .extracting(Tool::name)
        .containsExactly("create-order");
    assertThat(notesOnly.listTools().tools()).extracting(Tool::name).isEmpty();
    CallToolResult refused =
        notesOnly.callTool(OrdersOverMcpTest.createOrder("order-1", "BOOK-1", 2));
    CallToolResult allowed =
        ordersOnly.callTool(OrdersOverMcpTest.createOrder("order-2", "BOOK-1", 2));

    assertThat(refused.isError()).isTrue();
    assertThat(OrdersOverMcpTest.structured(refused).path("type").asText()).isEqualTo(FORBIDDEN);
    assertThat(refused.meta()).doesNotContainKey(McpConventions.REPLAYED);
    assertThat(allowed.isError()).isFalse();
    assertThat(node.orders()).isEqualTo(1);
    assertThat(node.operations()).isEqualTo(1);
  }

  static List<String> names(JsonNode tools) {
    List<String> names = new ArrayList<>();
    tools.get("tools").forEach(t -> names.add(t.get("name").asText()));
    return names;
  }
}
