package com.example.notes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A test tool that inserts its note through the application's {@link JdbcTemplate} and then throws:
 * the failure between an effect and its record. Nothing of it may remain.
 */
final class FailAfterInsertTool implements TransactionalTool {
  static final String NAME = "create-note-then-fail";
  private final JdbcTemplate jdbc;
  private final ToolDescriptor descriptor;

  FailAfterInsertTool(JdbcTemplate jdbc) throws Exception {
    this.jdbc = jdbc;
    this.descriptor =
        ToolDescriptor.builder(NAME, "1")
            .inputSchema(
                new ObjectMapper()
                    .readTree(
                        "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"}},"
                            + "\"required\":[\"title\"]}"))
            .build();
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) {
    int inserted =
        jdbc.update(
            "INSERT INTO app_notes (id, tenant, title, body, created_at) VALUES (?, ?, ?, '', ?)",
            UUID.randomUUID().toString(),
            context.tenant().value(),
            parameters.get("title").textValue(),
            context.now().toEpochMilli());
    if (inserted == 1) {
      throw new IllegalStateException("failing after the insert, on purpose");
    }
    throw new AssertionError("the insert did not happen");
  }
}
