package dev.toolledger.server.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.StoredResponse;
import java.time.Instant;
import java.util.List;

/**
 * The JSON view of an operation record that every lookup answers with: {@code GET
 * /v1/operations/{key}} over HTTP and the {@code get-operation} tool over MCP.
 *
 * <p>Members: {@code key}, {@code tool}, {@code toolVersion}, {@code state}, {@code createdAt},
 * {@code completedAt}, {@code expiresAt} and {@code response} ({@code {"status", "body"}} for a
 * completed operation, otherwise null). The key is echoed because the caller sent it; the record is
 * only ever shown to the tenant that owns it.
 */
public final class OperationJson {
  private OperationJson() {}

  public static ObjectNode of(OperationRecord record, List<HistoryEntry> history) {
    ObjectNode json = Json.object();
    json.put("key", record.key().value());
    json.put("tool", record.intent().map(OperationIntent::tool).orElse(null));
    json.put("toolVersion", record.intent().map(OperationIntent::toolVersion).orElse(null));
    json.put("state", record.state().name());
    json.put("createdAt", record.createdAt().toString());
    json.put("completedAt", record.completedAt().map(Instant::toString).orElse(null));
    json.put("expiresAt", record.expiresAt().map(Instant::toString).orElse(null));
    if (record.response().isPresent()) {
      StoredResponse stored = record.response().get();
      ObjectNode responseJson = json.putObject("response");
      responseJson.put("status", stored.status());
      responseJson.set("body", Json.parse(stored.body()));
    } else {
      json.putNull("response");
    }
    ArrayNode steps = json.putArray("history");
    for (HistoryEntry entry : history) {
      ObjectNode step = steps.addObject();
      step.put("at", entry.at().toString());
      step.put("from", entry.from().map(Enum::name).orElse(null));
      step.put("to", entry.to().name());
      step.put("cause", entry.cause());
      step.put("actor", entry.actor());
    }
    return json;
  }
}
