package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.protocol.StoredResponse;
import dev.toolledger.server.operations.OperationJson;
import dev.toolledger.server.operations.OperationProblems;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Turns what the engine answered into MCP tool results. A recorded outcome carries the recorded
 * body (as {@code structuredContent} and, for clients that ignore that, as text) and says in {@code
 * _meta} whether it was replayed. Everything that is not a recorded success is a tool error ({@code
 * isError: true}) so that the model sees it; ledger errors carry the RFC 9457 problem document of
 * the HTTP API, with the same type URIs.
 */
final class McpResults {
  private McpResults() {}

  static CallToolResult of(ExecutionOutcome outcome, OperationKey key) {
    if (outcome instanceof ExecutionOutcome.Executed executed) {
      return recorded(executed.response(), false, key);
    }
    if (outcome instanceof ExecutionOutcome.Replayed replayed) {
      return recorded(replayed.response(), true, key);
    }
    if (outcome instanceof ExecutionOutcome.KeyReused reused) {
      return problem(
          Problem.of(
              ProblemType.KEY_REUSED,
              "this key belongs to an earlier call of "
                  + reused.recordedTool()
                  + " with other arguments; a retry must send the same arguments, a new action"
                  + " needs a new key"),
          key,
          null,
          null);
    }
    if (outcome instanceof ExecutionOutcome.InProgress inProgress) {
      return problem(
          Problem.of(
              ProblemType.IN_PROGRESS,
              "another call with this key is still executing; call again with the same key after "
                  + inProgress.retryAfter().toSeconds()
                  + " s to get its outcome"),
          key,
          OperationState.IN_PROGRESS,
          inProgress.retryAfter());
    }
    if (outcome instanceof ExecutionOutcome.OutcomeUnknown) {
      return problem(
          Problem.of(
              ProblemType.OUTCOME_UNKNOWN,
              "the outcome of this operation is unknown: its effect may or may not have happened;"
                  + " it will not be executed again; look it up with the "
                  + McpConventions.GET_OPERATION
                  + " tool or have an operator resolve it"),
          key,
          OperationState.UNKNOWN,
          null);
    }
    if (outcome instanceof ExecutionOutcome.NotExecuted) {
      return problem(
          Problem.of(
              ProblemType.NOT_EXECUTED,
              "this key was resolved as not executed and is fenced; it will not execute. A new"
                  + " action needs a new key"),
          key,
          OperationState.NOT_EXECUTED,
          null);
    }
    if (outcome instanceof ExecutionOutcome.InvalidParameters invalid) {
      return invalidParameters(invalid.violations(), key);
    }
    if (outcome instanceof ExecutionOutcome.UnknownTool unknown) {
      return problem(
          Problem.of(ProblemType.UNKNOWN_TOOL, "no tool is named '" + unknown.tool() + "'"),
          key,
          null,
          null);
    }
    if (outcome instanceof ExecutionOutcome.ToolUnavailable unavailable) {
      return problem(
          Problem.of(
              ProblemType.TOOL_UNAVAILABLE,
              "the tool reported that nothing happened ("
                  + unavailable.reason()
                  + "); nothing was recorded, so a call with the same key after "
                  + unavailable.retryAfter().toSeconds()
                  + " s executes it afresh"),
          key,
          null,
          unavailable.retryAfter());
    }
    if (outcome instanceof ExecutionOutcome.Expired expired) {
      return problem(OperationProblems.expired(expired.tombstone()), key, null, null);
    }
    if (outcome instanceof ExecutionOutcome.RateLimited limited) {
      return problem(
          Problem.of(
              ProblemType.RATE_LIMITED,
              "this tenant started more new operations than its rate allows; nothing was"
                  + " recorded, so the same call with the same key may be made again after "
                  + limited.retryAfter().toSeconds()
                  + " s (replays and lookups are not limited)"),
          key,
          null,
          limited.retryAfter());
    }
    if (outcome instanceof ExecutionOutcome.ResponseTooLarge tooLarge) {
      return problem(
          Problem.of(
              ProblemType.RESPONSE_TOO_LARGE,
              "the tool's response was "
                  + tooLarge.bytes()
                  + " bytes, more than the "
                  + tooLarge.limit()
                  + " bytes the ledger records; its transaction was rolled back and nothing was"
                  + " recorded. The same call will most likely fail the same way"),
          key,
          null,
          null);
    }
    if (outcome instanceof ExecutionOutcome.Busy busy) {
      return problem(
          Problem.of(
              ProblemType.STORE_BUSY,
              "the ledger stayed busy and nothing was recorded; call again with the same key after "
                  + busy.retryAfter().toSeconds()
                  + " s"),
          key,
          null,
          busy.retryAfter());
    }
    throw new IllegalStateException("unmapped outcome " + outcome.kind() + " for " + key);
  }

  /** The answer of {@code get-operation} for a record the caller owns. */
  static CallToolResult operation(OperationRecord record, List<HistoryEntry> history) {
    ObjectNode json = OperationJson.of(record, history);
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.STATE, record.state().name());
    return CallToolResult.builder()
        .content(List.of(TextContent.builder(Json.write(json)).build()))
        .structuredContent(json)
        .isError(false)
        .meta(meta)
        .build();
  }

  static CallToolResult invalidParameters(List<Violation> violations, OperationKey key) {
    ArrayNode errors = Json.mapper().createArrayNode();
    for (Violation violation : violations) {
      errors.addObject().put("field", violation.field()).put("message", violation.message());
    }
    String fields =
        violations.stream()
            .map(v -> v.field().isEmpty() ? "(arguments)" : v.field())
            .distinct()
            .collect(Collectors.joining(", "));
    return problem(
        Problem.of(
                ProblemType.INVALID_PARAMETERS,
                "the arguments do not match the tool's input schema at "
                    + fields
                    + "; nothing was recorded, so the same key may be used with corrected"
                    + " arguments")
            .with("errors", errors),
        key,
        null,
        null);
  }

  /**
   * A recorded outcome. MCP wants {@code structuredContent} to be an object: a body that is not one
   * is wrapped as {@code {"value": body}}; the text block always holds the recorded body verbatim.
   */
  private static CallToolResult recorded(
      StoredResponse stored, boolean replayed, OperationKey key) {
    JsonNode body = Json.parse(stored.body());
    boolean error = stored.status() >= 400;
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.REPLAYED, replayed);
    meta.put(McpConventions.STATE, OperationState.COMPLETED.name());
    meta.put(McpConventions.STATUS, stored.status());
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
        .content(List.of(TextContent.builder(stored.body()).build()))
        .structuredContent(structured)
        .isError(error)
        .meta(meta)
        .build();
  }

  /**
   * A ledger error: nothing was recorded by this call (or the record is not an outcome that may be
   * replayed). The problem document is the one the HTTP API sends, with the same type URI.
   */
  static CallToolResult problem(
      Problem problem, OperationKey key, OperationState state, Duration retryAfter) {
    ObjectNode json = problem.toJson();
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.PROBLEM_TYPE, problem.type().uri().toString());
    if (state != null) {
      meta.put(McpConventions.STATE, state.name());
    }
    if (retryAfter != null) {
      meta.put(McpConventions.RETRY_AFTER_SECONDS, retryAfter.toSeconds());
    }
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

  static CallToolResult problem(Problem problem) {
    return problem(problem, null, null, null);
  }
}
