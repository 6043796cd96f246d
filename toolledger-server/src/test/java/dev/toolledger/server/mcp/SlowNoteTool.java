package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * A test-only tool that inserts a note like create-note, but only after the test lets it go. It
 * waits interruptibly, as JDBC drivers and pools do: if anything interrupts the thread that runs
 * the engine, the tool fails, its transaction rolls back and nothing is recorded.
 */
final class SlowNoteTool implements TransactionalTool {
  static final String NAME = "slow-note";

  final CountDownLatch entered = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder(NAME, "1")
        .description("Creates a note, slowly.")
        .inputSchema(
            Json.parse(
                "{\"type\":\"object\",\"required\":[\"title\"],"
                    + "\"properties\":{\"title\":{\"type\":\"string\"}}}"))
        .build();
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    entered.countDown();
    if (!release.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the test never let the slow tool go");
    }
    String title = parameters.get("title").textValue();
    long id;
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement(
                "INSERT INTO notes (tenant, title, body, created_at) VALUES (?, ?, '', ?)"
                    + " RETURNING id")) {
      ps.setString(1, context.tenant().value());
      ps.setString(2, title);
      ps.setLong(3, context.now().toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        id = rs.getLong(1);
      }
    }
    ObjectNode note = Json.object();
    note.put("id", id);
    note.put("title", title);
    return ToolResponse.of(201, note);
  }
}
