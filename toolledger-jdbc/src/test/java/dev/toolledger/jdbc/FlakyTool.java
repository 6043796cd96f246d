package dev.toolledger.jdbc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.protocol.Json;
import java.sql.PreparedStatement;
import java.sql.SQLTransientException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes its effect and then fails with a transient database error on its first {@code failures}
 * attempts, the way a serialization failure or a dropped connection surfaces to a tool.
 */
final class FlakyTool implements TransactionalTool {
  final AtomicInteger attempts = new AtomicInteger();
  private final int failures;

  FlakyTool(int failures) {
    this.failures = failures;
  }

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder("flaky", "1")
        .inputSchema(Json.parse("{\"type\":\"object\"}"))
        .build();
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    int attempt = attempts.incrementAndGet();
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement("INSERT INTO test_items (tenant, name) VALUES (?, 'flaky')")) {
      ps.setString(1, context.tenant().value());
      ps.executeUpdate();
    }
    if (attempt <= failures) {
      throw new SQLTransientException("injected transient failure, attempt " + attempt);
    }
    return ToolResponse.of(201, Json.object().put("attempt", attempt));
  }
}
