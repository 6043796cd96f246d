package com.example.tickets;

import com.fasterxml.jackson.core.JsonProcessingException;
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
 * {@code open-ticket}: inserts one row in your {@code tickets} table. It runs on the ledger's
 * connection, inside the transaction that records the operation, so the ticket and the record
 * commit together or not at all: a retry with the same operation key gets the ticket opened the
 * first time, never a second one.
 *
 * <p>Two rules for a transactional tool: write only through {@code context.connection()} (never
 * commit, roll back or change its auto-commit), and return a definitive business error as a
 * response (it is recorded and replayed) rather than throwing (a throw rolls everything back and
 * the caller may retry).
 */
public final class OpenTicketTool implements TransactionalTool {
  private static final JsonNode SCHEMA =
      json(
          """
          {"type": "object", "additionalProperties": false, "required": ["title"],
           "properties": {
             "title": {"type": "string", "minLength": 1, "maxLength": 200},
             "priority": {"enum": ["low", "normal", "high"], "default": "normal"}}}
          """);

  private static final ToolDescriptor DESCRIPTOR =
      ToolDescriptor.builder("open-ticket", "1")
          .description(
              "Opens a ticket. Safe to retry with the same operation key: a retry returns the"
                  + " ticket opened the first time.")
          .inputSchema(SCHEMA)
          .retention(Duration.ofDays(7))
          .build();

  @Override
  public ToolDescriptor descriptor() {
    return DESCRIPTOR;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    // The parameters were validated against SCHEMA, with its defaults applied.
    String title = parameters.get("title").textValue();
    String priority = parameters.get("priority").textValue();
    try (PreparedStatement insert =
        context
            .connection()
            .prepareStatement(
                "INSERT INTO tickets (tenant, title, priority, opened_at) VALUES (?, ?, ?, ?)"
                    + " RETURNING id")) {
      insert.setString(1, context.tenant().value());
      insert.setString(2, title);
      insert.setString(3, priority);
      insert.setLong(4, context.now().toEpochMilli());
      try (ResultSet rs = insert.executeQuery()) {
        rs.next();
        ObjectNode ticket = JsonNodeFactory.instance.objectNode();
        ticket.put("ticket", rs.getLong(1));
        ticket.put("title", title);
        ticket.put("priority", priority);
        return ToolResponse.of(201, ticket);
      }
    }
  }

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
