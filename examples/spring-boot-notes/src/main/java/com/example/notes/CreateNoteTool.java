package com.example.notes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import java.time.Duration;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The application's write tool, written the Spring way: a bean that writes through the
 * application's {@link JdbcTemplate}. The starter runs it inside the ledger's transaction, so the
 * note and the operation's record commit together or not at all, and a retry with the same
 * operation key replays the recorded response instead of inserting a second note.
 */
@Component
public class CreateNoteTool implements TransactionalTool {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA =
      """
      {"type": "object",
       "properties": {
         "title": {"type": "string", "minLength": 1, "maxLength": 200},
         "body": {"type": "string", "maxLength": 10000, "default": ""}},
       "required": ["title"],
       "additionalProperties": false}
      """;

  private final JdbcTemplate jdbc;
  private final ToolDescriptor descriptor;

  public CreateNoteTool(JdbcTemplate jdbc) throws Exception {
    this.jdbc = jdbc;
    this.descriptor =
        ToolDescriptor.builder("create-note", "1")
            .description("Creates a note. Safe to retry with the same operation key.")
            .inputSchema(JSON.readTree(SCHEMA))
            .retention(Duration.ofDays(7))
            .build();
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) {
    String id = UUID.randomUUID().toString();
    String title = parameters.get("title").textValue();
    String body = parameters.get("body").textValue();
    jdbc.update(
        "INSERT INTO app_notes (id, tenant, title, body, created_at) VALUES (?, ?, ?, ?, ?)",
        id,
        context.tenant().value(),
        title,
        body,
        context.now().toEpochMilli());
    ObjectNode note = JSON.createObjectNode().put("id", id).put("title", title).put("body", body);
    return ToolResponse.of(201, note);
  }
}
