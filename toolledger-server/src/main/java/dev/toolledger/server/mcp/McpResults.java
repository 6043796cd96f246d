package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.server.answer.Answer;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.answer.Channel;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Frames the ledger's {@link Answer}s as MCP tool results. A recorded outcome carries the recorded
 * body (as {@code structuredContent} and, for clients that ignore that, as text) and says in {@code
 * _meta} whether it was replayed. Everything that is not a recorded success is a tool error ({@code
 * isError: true}) so that the model sees it; ledger errors carry the RFC 9457 problem document of
 * the HTTP API, with the same type URIs. What the answer is, {@link Answers} decides.
 */
final class McpResults {
  private McpResults() {}

  static CallToolResult of(ExecutionOutcome outcome, OperationKey key) {
    return of(Answers.of(outcome, Channel.MCP), key);
  }

  /**
   * @param key the operation key the answer is about, echoed in {@code _meta}; null for none
   */
  static CallToolResult of(Answer answer, OperationKey key) {
    if (answer instanceof Answer.Recorded recorded) {
      return recorded(recorded, key);
    }
    if (answer instanceof Answer.Refused refused) {
      return refused(refused, key);
    }
    if (answer instanceof Answer.Found found) {
      return found(found);
    }
    throw new IllegalStateException("no MCP result for " + answer.getClass().getSimpleName());
  }

  /** A record as {@code get-operation} shows it (the client's parity test frames one here). */
  static CallToolResult operation(OperationRecord record, List<HistoryEntry> history) {
    return found(Answers.found(record, history));
  }

  static CallToolResult problem(
      Problem problem, OperationKey key, OperationState state, Duration retryAfter) {
    return refused(
        new Answer.Refused(problem, Optional.ofNullable(state), Optional.ofNullable(retryAfter)),
        key);
  }

  static CallToolResult problem(Problem problem) {
    return problem(problem, null, null, null);
  }

  private static CallToolResult found(Answer.Found found) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.STATE, found.operationState().name());
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(Json.write(found.body())).build()))
        .structuredContent(found.body())
        .isError(false)
        .meta(meta)
        .build();
  }

  /**
   * A recorded outcome. MCP wants {@code structuredContent} to be an object: a body that is not one
   * is wrapped as {@code {"value": body}}; the text block always holds the recorded body verbatim.
   */
  private static CallToolResult recorded(Answer.Recorded recorded, OperationKey key) {
    String text = recorded.response().body();
    JsonNode body = Json.parse(text);
    boolean error = recorded.status() >= 400;
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.REPLAYED, recorded.replayed());
    meta.put(McpConventions.STATE, OperationState.COMPLETED.name());
    meta.put(McpConventions.STATUS, recorded.status());
    meta.put(McpConventions.OPERATION_KEY, key.value());
    if (error && body.path("type").isTextual()) {
      meta.put(McpConventions.PROBLEM_TYPE, body.path("type").textValue());
    }
    JsonNode structured = body;
    if (!body.isObject()) {
      ObjectNode wrapped = Json.object();
      wrapped.set("value", body);
      structured = wrapped;
    }
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(text).build()))
        .structuredContent(structured)
        .isError(error)
        .meta(meta)
        .build();
  }

  /**
   * A ledger error: nothing was recorded by this call (or the record is not an outcome that may be
   * replayed). The problem document is the one the HTTP API sends, with the same type URI; the wait
   * that HTTP puts in Retry-After is in {@code _meta}.
   */
  private static CallToolResult refused(Answer.Refused refused, OperationKey key) {
    ObjectNode json = refused.problem().toJson();
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.PROBLEM_TYPE, refused.problem().type().uri().toString());
    refused.state().ifPresent(state -> meta.put(McpConventions.STATE, state.name()));
    refused
        .retryAfter()
        .ifPresent(wait -> meta.put(McpConventions.RETRY_AFTER_SECONDS, wait.toSeconds()));
    if (key != null) {
      meta.put(McpConventions.OPERATION_KEY, key.value());
    }
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(Json.write(json)).build()))
        .structuredContent(json)
        .isError(true)
        .meta(meta)
        .build();
  }
}
