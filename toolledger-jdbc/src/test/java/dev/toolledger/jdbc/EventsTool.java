package dev.toolledger.jdbc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.OutboxMessage;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.protocol.Json;
import java.net.URI;
import java.sql.PreparedStatement;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transactional tool that inserts an item and enqueues {@code events} events about it through
 * {@link TransactionContext#outbox()}, in the same transaction. A name of "explode" throws after
 * enqueueing; {@link #transientFailures} makes the first attempts fail the way a serialization
 * failure surfaces, after enqueueing.
 */
final class EventsTool implements TransactionalTool {
  static final URI RECIPIENT = URI.create("https://recipient.test/v1/events");

  /** The event ids each attempt got, in order. */
  final List<List<String>> idsPerAttempt = new CopyOnWriteArrayList<>();

  /** How many of the next attempts fail with a transient database error. */
  final AtomicInteger transientFailures = new AtomicInteger();

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder("create-with-events", "1")
        .inputSchema(
            Json.parse(
                "{\"type\":\"object\",\"additionalProperties\":false,"
                    + "\"required\":[\"name\",\"events\"],\"properties\":{"
                    + "\"name\":{\"type\":\"string\",\"minLength\":1},"
                    + "\"events\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":50}}}"))
        .build();
  }

  static JsonNode params(String name, int events) {
    return Json.object().put("name", name).put("events", events);
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    String name = parameters.get("name").asText();
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement("INSERT INTO test_items (tenant, name) VALUES (?, ?)")) {
      ps.setString(1, context.tenant().value());
      ps.setString(2, name);
      ps.executeUpdate();
    }
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < parameters.get("events").asInt(); i++) {
      ids.add(
          context
              .outbox()
              .enqueue(
                  new OutboxMessage(
                      "item.created",
                      "item:" + name,
                      RECIPIENT,
                      Json.object().put("name", name).put("n", i))));
    }
    idsPerAttempt.add(List.copyOf(ids));
    if (name.equals("explode")) {
      throw new IllegalStateException("injected failure after the effect and its events");
    }
    if (transientFailures.getAndDecrement() > 0) {
      throw new SQLTransientException("injected transient failure");
    }
    return ToolResponse.of(201, Json.object().set("events", Json.mapper().valueToTree(ids)));
  }
}
