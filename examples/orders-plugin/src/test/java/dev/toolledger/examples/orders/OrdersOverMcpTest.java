package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.examples.orders.OrdersNode.Reply;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.mcp.McpConventions;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code create-order} over MCP, driven by the official MCP Java SDK client over Streamable HTTP
 * against the embedded node: the team's tool gets the same listing, replay and conflict as the
 * reference tool, with nothing written for it in the server.
 */
class OrdersOverMcpTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String KEY_REUSED = "https://toolledger.dev/problems/idempotency-key-reused";

  @TempDir Path dir;
  OrdersNode node;
  McpSyncClient agent;

  @BeforeEach
  void start() {
    Path file = dir.resolve("ledger.db");
    node =
        new OrdersNode(
            () -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build()), new OrdersPlugin());
    agent = node.mcpClient(node.token("acme"));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  static CallToolRequest createOrder(String key, String sku, int quantity) {
    return CallToolRequest.builder("create-order")
        .arguments(Map.of("sku", sku, "quantity", quantity))
        .meta(Map.of(McpConventions.OPERATION_KEY, key))
        .build();
  }

  static JsonNode structured(CallToolResult result) {
    return JSON.valueToTree(result.structuredContent());
  }

  static String text(CallToolResult result) {
    assertThat(result.content()).hasSize(1);
    return ((TextContent) result.content().get(0)).text();
  }

  @Test
  void toolsListShowsCreateOrderWithItsOwnSchemaDescriptionAndRetrySafeAnnotations() {
    List<Tool> tools = agent.listTools().tools();

    assertThat(tools).extracting(Tool::name).containsExactly("create-order", "get-operation");
    Tool createOrder = tools.get(0);
    CreateOrderTool tool = new CreateOrderTool();
    assertThat(JSON.<JsonNode>valueToTree(createOrder.inputSchema()))
        .isEqualTo(tool.descriptor().inputSchema());
    assertThat(createOrder.description()).isEqualTo(tool.descriptor().description());
    assertThat(createOrder.annotations().idempotentHint()).isTrue();
    assertThat(createOrder.annotations().destructiveHint()).isFalse();
    assertThat(createOrder.annotations().readOnlyHint()).isFalse();
    assertThat(createOrder.annotations().openWorldHint()).isFalse();
    assertThat(createOrder.meta())
        .containsEntry(McpConventions.OPERATION_KEY, "required")
        .containsEntry(McpConventions.TOOL_VERSION, "1");
  }

  @Test
  void aCallPlacesTheOrderAndTheSameCallWithTheSameKeyReplaysIt() throws Exception {
    CallToolResult first = agent.callTool(createOrder("order-1", "BOOK-1", 2));
    CallToolResult retry = agent.callTool(createOrder("order-1", "BOOK-1", 2));

    assertThat(first.isError()).isFalse();
    long orderId = node.count("SELECT id FROM orders");
    JsonNode order =
        JSON.readTree("{\"orderId\":" + orderId + ",\"sku\":\"BOOK-1\",\"quantity\":2}");
    assertThat(structured(first)).isEqualTo(order);
    assertThat(JSON.readTree(text(first))).isEqualTo(order);
    assertThat(first.meta())
        .containsEntry(McpConventions.REPLAYED, false)
        .containsEntry(McpConventions.STATE, "COMPLETED")
        .containsEntry(McpConventions.STATUS, 201)
        .containsEntry(McpConventions.OPERATION_KEY, "order-1");
    assertThat(retry.isError()).isFalse();
    assertThat(retry.meta())
        .containsEntry(McpConventions.REPLAYED, true)
        .containsEntry(McpConventions.STATE, "COMPLETED")
        .containsEntry(McpConventions.STATUS, 201);
    assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
    assertThat(retry.content()).isEqualTo(first.content());
    assertThat(node.orders()).isEqualTo(1);
    assertThat(node.operations()).isEqualTo(1);
  }

  @Test
  void theSameKeyWithAnotherQuantityIsTheDocumentedConflictAndPlacesNothing() {
    agent.callTool(createOrder("order-1", "BOOK-1", 2));

    CallToolResult conflict = agent.callTool(createOrder("order-1", "BOOK-1", 3));

    assertThat(conflict.isError()).isTrue();
    assertThat(structured(conflict).path("type").asText()).isEqualTo(KEY_REUSED);
    assertThat(structured(conflict).path("status").asInt()).isEqualTo(422);
    assertThat(structured(conflict).path("detail").asText()).contains("create-order");
    assertThat(conflict.meta())
        .containsEntry(McpConventions.PROBLEM_TYPE, KEY_REUSED)
        .doesNotContainKey(McpConventions.REPLAYED);
    assertThat(node.orders()).isEqualTo(1);
    assertThat(node.count("SELECT quantity FROM orders")).isEqualTo(2);
  }

  @Test
  void theToolsBusinessErrorIsARecordedToolErrorReplayedWithoutAnOrder() {
    CallToolResult refused = agent.callTool(createOrder("order-1", "DISCONTINUED-7", 1));
    CallToolResult again = agent.callTool(createOrder("order-1", "DISCONTINUED-7", 1));

    assertThat(refused.isError()).isTrue();
    assertThat(structured(refused).path("type").asText())
        .isEqualTo("https://example.com/problems/orders/unknown-sku");
    assertThat(refused.meta())
        .containsEntry(McpConventions.REPLAYED, false)
        .containsEntry(McpConventions.STATUS, 422)
        .containsEntry(McpConventions.STATE, "COMPLETED");
    assertThat(again.meta()).containsEntry(McpConventions.REPLAYED, true);
    assertThat(again.structuredContent()).isEqualTo(refused.structuredContent());
    assertThat(node.orders()).isZero();
  }

  @Test
  void anOrderPlacedOverHttpIsReplayedOverMcpUnderTheSameKey() throws Exception {
    Reply overHttp =
        node.call("create-order", node.token("acme"), "order-1", OrdersSeedScenarioTest.ORDER);

    CallToolResult overMcp = agent.callTool(createOrder("order-1", "BOOK-1", 2));

    assertThat(overHttp.status()).isEqualTo(201);
    assertThat(overMcp.meta()).containsEntry(McpConventions.REPLAYED, true);
    assertThat(structured(overMcp)).isEqualTo(overHttp.body());
    assertThat(node.orders()).isEqualTo(1);
  }

  @Test
  void getOperationShowsTheCreateOrderOperationLikeTheHttpLookup() {
    CallToolResult placed = agent.callTool(createOrder("order-1", "BOOK-1", 2));

    CallToolResult found =
        agent.callTool(
            CallToolRequest.builder(McpConventions.GET_OPERATION)
                .arguments(Map.of("key", "order-1"))
                .build());

    assertThat(found.isError()).isFalse();
    JsonNode operation = structured(found);
    assertThat(operation.path("tool").asText()).isEqualTo("create-order");
    assertThat(operation.path("toolVersion").asText()).isEqualTo("1");
    assertThat(operation.path("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.at("/response/body")).isEqualTo(structured(placed));
    assertThat(operation).isEqualTo(node.get("/v1/operations/order-1", node.token("acme")).body());
  }
}
