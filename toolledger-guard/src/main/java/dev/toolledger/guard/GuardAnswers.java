package dev.toolledger.guard;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.clientmcp.McpActionTransport;
import dev.toolledger.protocol.Json;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns how a call ended into the answer the host's model reads: one sentence it can act on, the
 * result or problem document, and {@code _meta}. The only place that decides {@code isError}:
 *
 * <ul>
 *   <li>executed, replayed: {@code isError: false}, the recorded body;
 *   <li>refused (a refusal of the node, or a business error the tool recorded): {@code isError:
 *       true}, and the words say nothing happened and a changed call is safe;
 *   <li>unknown: {@code isError: false}. MCP defines {@code isError} as "the tool call failed",
 *       which is exactly what is not known; hosts present errors as "failed, try again", and a
 *       changed retry (a new action) is how a lost answer becomes a duplicate. The words say it may
 *       have happened, not to repeat it, and how to check.
 * </ul>
 */
final class GuardAnswers {
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private GuardAnswers() {}

  /** The answer to one forwarded call. */
  static CallToolResult of(String tool, ActionClaims.Claim claim, Outcome outcome) {
    if (outcome instanceof Outcome.Completed completed) {
      JsonNode body = completed.body();
      if (!completed.isSuccess()) {
        return result(
            true,
            "Refused and not executed: "
                + tool
                + " declined this request (recorded status "
                + completed.status()
                + "). Nothing was changed. It is safe to change the arguments and call again."
                + " Details: "
                + Json.write(body),
            body,
            meta(GuardOutcome.REFUSED, claim.id(), completed));
      }
      GuardOutcome said =
          claim.earlier() && completed.replayed() ? GuardOutcome.REPLAYED : GuardOutcome.EXECUTED;
      String words =
          said == GuardOutcome.EXECUTED
              ? "Executed: " + tool + " ran once and its result is recorded. Result: "
              : "Replayed: this call was the same action as an earlier identical call whose answer"
                  + " had not arrived. It ran once, and this is its recorded result; nothing ran"
                  + " again. (Call "
                  + tool
                  + " again if you really want a second one.) Result: ";
      return result(false, words + Json.write(body), body, meta(said, claim.id(), completed));
    }
    if (outcome instanceof Outcome.Rejected rejected) {
      return refused(tool, claim.id(), rejected.problem());
    }
    Outcome.Unknown unknown = (Outcome.Unknown) outcome;
    return unknown(tool, claim.id(), unknown.reason());
  }

  static CallToolResult refused(String tool, String action, ProblemDetails problem) {
    Map<String, Object> meta = base(GuardOutcome.REFUSED, action);
    meta.put(McpActionTransport.PROBLEM_TYPE, problem.type().toString());
    String what = problem.detail().isEmpty() ? problem.title() : problem.detail();
    return result(
        true,
        "Refused and not executed: "
            + tool
            + " was not run ("
            + what
            + "). Nothing happened. It is safe to change the arguments and call again.",
        problem.document(),
        meta);
  }

  static CallToolResult unknown(String tool, String action, String reason) {
    ObjectNode body = Json.object();
    body.put("outcome", GuardOutcome.UNKNOWN.wire());
    body.put("action", action);
    body.put("tool", tool);
    body.put("reason", reason);
    return result(
        false,
        "Outcome unknown: "
            + tool
            + " was sent but no definitive answer arrived, so it MAY HAVE HAPPENED. This is not a"
            + " failure: do not assume it failed, and do not call "
            + tool
            + " with changed arguments to work around it. To check, call "
            + GuardConventions.GET_OPERATION
            + " with {\"action\": \""
            + action
            + "\"} (or "
            + GuardConventions.PENDING_ACTIONS
            + "). Calling "
            + tool
            + " again with exactly the same arguments is safe: it is treated as this same action"
            + " and returns its outcome instead of repeating it. ("
            + reason
            + ")",
        body,
        base(GuardOutcome.UNKNOWN, action));
  }

  private static Map<String, Object> meta(
      GuardOutcome said, String action, Outcome.Completed completed) {
    Map<String, Object> meta = base(said, action);
    meta.put(McpActionTransport.REPLAYED, said == GuardOutcome.REPLAYED);
    meta.put(McpActionTransport.STATE, "COMPLETED");
    meta.put(McpActionTransport.STATUS, completed.status());
    return meta;
  }

  static Map<String, Object> base(GuardOutcome said, String action) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(GuardConventions.OUTCOME, said.wire());
    meta.put(GuardConventions.ACTION, action);
    return meta;
  }

  /** A result whose {@code structuredContent} is the body (wrapped as the node does if needed). */
  static CallToolResult result(
      boolean isError, String words, JsonNode body, Map<String, Object> meta) {
    JsonNode structured = body.isObject() ? body : Json.object().set("value", body);
    return CallToolResult.builder()
        .addTextContent(words)
        .structuredContent(Json.mapper().convertValue(structured, MAP))
        .isError(isError)
        .meta(meta)
        .build();
  }

  /** A plain answer of one of the guard's own tools. */
  static CallToolResult info(String words, JsonNode body, boolean isError) {
    JsonNode structured = body.isObject() ? body : Json.object().set("value", body);
    return CallToolResult.builder()
        .addTextContent(words)
        .structuredContent(Json.mapper().convertValue(structured, MAP))
        .isError(isError)
        .build();
  }
}
