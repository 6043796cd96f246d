package dev.toolledger.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.protocol.Json;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A transactional tool that inserts a note and then holds its transaction open until released: a
 * long-running execution that duplicates must wait for.
 */
final class SlowNotes implements TransactionalTool {
  final CountDownLatch entered = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder("slow-note", "1")
        .inputSchema(
            Json.parse(
                "{\"type\":\"object\",\"required\":[\"title\"],"
                    + "\"properties\":{\"title\":{\"type\":\"string\"}}}"))
        .build();
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    long id;
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement(
                "INSERT INTO notes (tenant, title, body, created_at) VALUES (?, ?, '', 0)"
                    + " RETURNING id")) {
      ps.setString(1, context.tenant().value());
      ps.setString(2, parameters.get("title").asText());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        id = rs.getLong(1);
      }
    }
    entered.countDown();
    if (!release.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("never released");
    }
    return ToolResponse.of(201, Json.object().put("id", id));
  }
}
