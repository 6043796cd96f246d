package dev.toolledger.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import java.io.UncheckedIOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;

/**
 * {@code create-order}: inserts one row in the team's own {@code orders} table. It runs inside the
 * ledger's transaction, so the order and the operation's record commit together or not at all.
 *
 * <p>An order for a SKU the catalogue does not sell is a definitive business error (422): nothing
 * was written, and the answer is recorded and replayed like a success.
 */
public final class CreateOrderTool implements TransactionalTool {
  private static final JsonNode SCHEMA =
      json(
          """
          {"type": "object", "additionalProperties": false, "required": ["sku", "quantity"],
           "properties": {
             "sku": {"type": "string", "pattern": "^[A-Z0-9-]{1,32}$"},
             "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
             "note": {"type": "string", "maxLength": 500, "default": ""}}}
          """);

  private final ToolDescriptor descriptor;

  /** Version 1 of the contract. */
  public CreateOrderTool() {
    this("create-order", "1");
  }

  /**
   * The same tool under another name or contract version: what a team ships when the meaning of the
   * parameters changes (a new version) or the tool is renamed.
   */
  public CreateOrderTool(String name, String version) {
    this.descriptor =
        ToolDescriptor.builder(name, version)
            .description(
                "Places an order for a SKU. Safe to retry with the same operation key: a retry"
                    + " returns the order placed the first time.")
            .inputSchema(SCHEMA)
            .retention(Duration.ofDays(30))
            .build();
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    String sku = parameters.get("sku").textValue();
    int quantity = parameters.get("quantity").intValue();
    if (sku.startsWith("DISCONTINUED-")) {
      ObjectNode problem = JsonNodeFactory.instance.objectNode();
      problem.put("type", "https://example.com/problems/orders/unknown-sku");
      problem.put("title", "Not sold");
      problem.put("status", 422);
      problem.put("detail", sku + " is not sold any more; no order was placed");
      return ToolResponse.of(422, problem);
    }
    try (PreparedStatement insert =
        context
            .connection()
            .prepareStatement(
                "INSERT INTO orders (tenant, sku, quantity, note, placed_at) VALUES (?, ?, ?, ?, ?)"
                    + " RETURNING id")) {
      insert.setString(1, context.tenant().value());
      insert.setString(2, sku);
      insert.setInt(3, quantity);
      insert.setString(4, parameters.get("note").textValue());
      insert.setLong(5, context.now().toEpochMilli());
      try (ResultSet rs = insert.executeQuery()) {
        rs.next();
        ObjectNode order = JsonNodeFactory.instance.objectNode();
        order.put("orderId", rs.getLong(1));
        order.put("sku", sku);
        order.put("quantity", quantity);
        return ToolResponse.of(201, order);
      }
    }
  }

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
