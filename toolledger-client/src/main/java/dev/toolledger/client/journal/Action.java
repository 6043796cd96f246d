package dev.toolledger.client.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.CanonicalJson;
import java.util.Objects;

/**
 * One business action an agent host intends to take: a step of a workflow, calling one tool with
 * its parameters. The (workflow id, step id) pair names the action; the journal gives it one
 * operation key for its whole life, across retries and restarts.
 *
 * <p>A new user intention is a new step id, even with identical parameters (a user may want two
 * notes with the same title). The same step id with other parameters is not a retry but a different
 * action, and the journal refuses it.
 *
 * @param workflowId the workflow (conversation, job, run) the action belongs to; 1 to {@value
 *     #MAX_ID_LENGTH} characters, no control characters
 * @param stepId the action's stable id within the workflow, chosen by the host (never by the
 *     model); same rules
 * @param tool the tool's name, for example {@code create-note}
 * @param parameters the tool's parameters as JSON
 */
public record Action(String workflowId, String stepId, String tool, JsonNode parameters) {
  public static final int MAX_ID_LENGTH = 200;
  public static final int MAX_TOOL_LENGTH = 128;

  public Action {
    requireId("workflowId", workflowId, MAX_ID_LENGTH);
    requireId("stepId", stepId, MAX_ID_LENGTH);
    requireId("tool", tool, MAX_TOOL_LENGTH);
    Objects.requireNonNull(parameters, "parameters");
    if (parameters.isMissingNode()) {
      throw new IllegalArgumentException("parameters must be a JSON value");
    }
    parameters = parameters.deepCopy();
    // Fails now, with the reason, for values that have no canonical form (NaN, lone surrogates).
    CanonicalJson.canonicalize(parameters);
  }

  public static Action of(String workflowId, String stepId, String tool, JsonNode parameters) {
    return new Action(workflowId, stepId, tool, parameters);
  }

  @Override
  public JsonNode parameters() {
    return parameters.deepCopy();
  }

  /**
   * Whether {@code other} asks for the same thing: the same tool and parameters that are equal as
   * RFC 8785 canonical JSON (so property order and {@code 1} versus {@code 1.0} do not matter).
   * Workflow and step ids are not compared.
   */
  public boolean sameIntentAs(Action other) {
    return tool.equals(other.tool)
        && CanonicalJson.canonicalize(parameters)
            .equals(CanonicalJson.canonicalize(other.parameters));
  }

  /** Without the parameters, which may be sensitive. */
  @Override
  public String toString() {
    return "Action[workflowId=" + workflowId + ", stepId=" + stepId + ", tool=" + tool + "]";
  }

  private static void requireId(String name, String value, int maxLength) {
    Objects.requireNonNull(value, name);
    if (value.isBlank() || value.length() > maxLength) {
      throw new IllegalArgumentException(
          name + " must be 1 to " + maxLength + " characters and not blank");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(
            name + " must not contain control characters (position " + (i + 1) + ")");
      }
    }
  }
}
