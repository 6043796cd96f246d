package dev.toolledger.testkit.history;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Every request clients sent during a run and what came back, in the order the answers came.
 * Thread-safe: the recording clients of a run share one.
 */
public final class History {
  private final List<Call> calls = new ArrayList<>();

  public synchronized void add(Call call) {
    calls.add(Objects.requireNonNull(call, "call"));
  }

  /** A copy of the calls so far. */
  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  /** Every key a tool call was sent under, in first-sent order. */
  public synchronized Set<String> toolKeys() {
    Set<String> keys = new LinkedHashSet<>();
    for (Call call : calls) {
      if (call.kind() == Call.Kind.TOOL) {
        keys.add(call.key());
      }
    }
    return keys;
  }

  /**
   * The key of the tool calls that sent each value of the string parameter {@code field}: how a run
   * maps effects in a tool's own tables (a note's title) back to the keys that asked for them. A
   * run gives every key its own value.
   */
  public synchronized Map<String, String> keyByParameter(String field) {
    Map<String, String> keys = new LinkedHashMap<>();
    for (Call call : calls) {
      if (call.kind() == Call.Kind.TOOL && !call.parameters().isEmpty()) {
        JsonNode value = Json.parse(call.parameters()).get(field);
        if (value != null && value.isTextual()) {
          keys.putIfAbsent(value.textValue(), call.key());
        }
      }
    }
    return keys;
  }
}
