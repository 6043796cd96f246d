package dev.toolledger.guard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** What the guard sent to the node through the proxy: every JSON-RPC message, in order. */
final class Wire implements DropPolicy {
  private final Predicate<JsonNode> drop;
  private final List<JsonNode> sent = new CopyOnWriteArrayList<>();

  Wire(Predicate<JsonNode> drop) {
    this.drop = drop;
  }

  static Wire lossless() {
    return new Wire(message -> false);
  }

  /** Drops the answer to the first {@code count} calls of {@code tool}. */
  static Wire dropFirst(int count, String tool) {
    int[] left = {count};
    return new Wire(
        message -> {
          synchronized (left) {
            if (isCall(message, tool) && left[0] > 0) {
              left[0]--;
              return true;
            }
            return false;
          }
        });
  }

  /** Drops the answer to every call of {@code tool}. */
  static Wire dropAll(String tool) {
    return new Wire(message -> isCall(message, tool));
  }

  @Override
  public boolean drop(Exchange exchange) {
    if (!exchange.method().equals("POST") || exchange.requestBody().isEmpty()) {
      return false;
    }
    JsonNode message = Json.parse(exchange.requestBody());
    sent.add(message);
    return drop.test(message);
  }

  /** The tools/call messages of {@code tool} that reached the node. */
  List<JsonNode> calls(String tool) {
    return sent.stream().filter(m -> isCall(m, tool)).toList();
  }

  /** The operation keys in those calls' {@code _meta}, in order. */
  List<String> keys(String tool) {
    return calls(tool).stream()
        .map(m -> m.path("params").path("_meta").path("dev.toolledger/operation-key").asText())
        .toList();
  }

  static boolean isCall(JsonNode message, String tool) {
    return "tools/call".equals(message.path("method").asText())
        && tool.equals(message.path("params").path("name").asText());
  }
}
