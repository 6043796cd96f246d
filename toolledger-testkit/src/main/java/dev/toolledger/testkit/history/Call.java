package dev.toolledger.testkit.history;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One request a client sent and what came back.
 *
 * @param kind a tool call or a lookup of a key
 * @param key the operation key
 * @param tool the tool's name (for a lookup, the empty string)
 * @param parameters the request's JSON body (for a lookup, the empty string)
 * @param start when the request was sent
 * @param end when the answer arrived or the client gave up on it
 * @param answer what came back
 */
public record Call(
    Kind kind,
    String key,
    String tool,
    String parameters,
    Instant start,
    Instant end,
    Answer answer) {

  /** Which of the ledger's two requests about a key this is. */
  public enum Kind {
    TOOL,
    LOOKUP
  }

  public Call {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(parameters, "parameters");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    Objects.requireNonNull(answer, "answer");
    if (end.isBefore(start)) {
      throw new IllegalArgumentException("a call cannot end before it starts");
    }
  }

  /** A tool call. */
  public static Call tool(
      String key, String tool, String parameters, Instant start, Instant end, Answer answer) {
    return new Call(Kind.TOOL, key, tool, parameters, start, end, answer);
  }

  /** A lookup of a key. */
  public static Call lookup(String key, Instant start, Instant end, Answer answer) {
    return new Call(Kind.LOOKUP, key, "", "", start, end, answer);
  }

  /** How long the client waited for this answer. */
  public Duration waited() {
    return Duration.between(start, end);
  }
}
