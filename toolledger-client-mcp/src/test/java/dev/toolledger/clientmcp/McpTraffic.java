package dev.toolledger.clientmcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A {@link DropPolicy} for a {@link dev.toolledger.testkit.LossyProxy} in front of {@code /mcp}: it
 * reads every JSON-RPC message the SDK client POSTs, remembers each {@code tools/call} as it went
 * over the wire (tool, {@code _meta} key, arguments, HTTP status of the answer), and hands only the
 * {@code tools/call}s it {@code applies} to to another policy that decides which answers to lose.
 * Initialization, notifications and the SSE probe always get through.
 */
final class McpTraffic implements DropPolicy {

  /** One {@code tools/call} the server answered. */
  record Call(String tool, Optional<String> key, JsonNode arguments, JsonNode meta, int status) {}

  final List<Call> calls = new CopyOnWriteArrayList<>();
  final List<String> methods = new CopyOnWriteArrayList<>();
  private final DropPolicy decide;
  private final Predicate<Call> applies;

  private McpTraffic(DropPolicy decide, Predicate<Call> applies) {
    this.decide = decide;
    this.applies = applies;
  }

  static McpTraffic forwardAll() {
    return new McpTraffic(DropPolicy.never(), call -> false);
  }

  /** Loses the answers that {@code decide} picks among the {@code tools/call}s of {@code tool}. */
  static McpTraffic losing(String tool, DropPolicy decide) {
    return new McpTraffic(decide, call -> call.tool().equals(tool));
  }

  @Override
  public boolean drop(Exchange exchange) {
    if (!exchange.method().equals("POST")) {
      return false;
    }
    JsonNode message;
    try {
      message = Json.parse(exchange.requestBody());
    } catch (MalformedJsonException e) {
      return false;
    }
    String method = message.path("method").asText("");
    methods.add(method);
    if (!method.equals("tools/call")) {
      return false;
    }
    JsonNode params = message.path("params");
    JsonNode meta = params.path("_meta");
    Call call =
        new Call(
            params.path("name").asText(),
            meta.path(McpActionTransport.OPERATION_KEY).isTextual()
                ? Optional.of(meta.get(McpActionTransport.OPERATION_KEY).textValue())
                : Optional.empty(),
            params.path("arguments"),
            meta,
            exchange.status());
    calls.add(call);
    return applies.test(call) && decide.drop(exchange);
  }

  List<Call> callsOf(String tool) {
    return calls.stream().filter(c -> c.tool().equals(tool)).toList();
  }

  /** How many {@code tools/call}s of {@code tool} carried each key. */
  Map<String, Long> attemptsByKey(String tool) {
    return callsOf(tool).stream()
        .collect(Collectors.groupingBy(c -> c.key().orElse("(none)"), Collectors.counting()));
  }
}
