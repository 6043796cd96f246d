package dev.toolledger.server.answer;

import java.time.Duration;

/**
 * The transport an answer goes out on, for its words only: an HTTP caller sends requests with
 * parameters and reads Retry-After from a header, a model over MCP makes calls with arguments and
 * reads the wait in the detail. Status, problem type, state and wait are the same on both.
 */
public enum Channel {
  HTTP,
  MCP;

  /** The name of one attempt: "request" or "call". */
  String attempt() {
    return pick("request", "call");
  }

  /** What the caller does to try again: "retry" or "call again". */
  String again() {
    return pick("retry", "call again");
  }

  /** One more attempt, as a noun: "a retry" or "a call". */
  String anotherAttempt() {
    return pick("a retry", "a call");
  }

  /** How long to wait: HTTP points at its Retry-After header, MCP names the seconds. */
  String wait(Duration retryAfter) {
    return pick("Retry-After seconds", retryAfter.toSeconds() + " s");
  }

  /** What the tool's input is called: "parameters" or "arguments". */
  String inputs() {
    return pick("parameters", "arguments");
  }

  /** Where an operation is looked up. The MCP name is {@code McpConventions.GET_OPERATION}. */
  String lookUp() {
    return pick("GET /v1/operations/{key}", "the get-operation tool");
  }

  /** The words for this channel, where the two transports phrase a sentence differently. */
  <T> T pick(T http, T mcp) {
    return this == HTTP ? http : mcp;
  }
}
