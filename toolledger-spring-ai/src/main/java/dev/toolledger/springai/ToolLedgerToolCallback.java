package dev.toolledger.springai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.core.json.Json;
import dev.toolledger.core.json.MalformedJsonException;
import dev.toolledger.core.problem.ProblemType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.lang.Nullable;

/**
 * A ToolLedger tool as a Spring AI {@link ToolCallback}. Build it with {@link ToolLedgerTools}.
 *
 * <p>Each call the model asks for becomes a journaled action: workflow id from the tool context
 * ({@link ToolLedgerTools#WORKFLOW_ID}), step id from the {@link StepIdentity}, the model's
 * arguments as parameters. {@link ToolLedgerClient#call} then gives it its key (the same key for
 * every later call of the same step, in this process or after a restart), sends it, retries it by
 * the client's one {@code RetryPolicy}, and the outcome goes back to the model as one JSON object
 * whose {@code outcome} is {@code completed}, {@code refused}, {@code rejected} or {@code unknown}
 * (docs/agents-spring-ai.md lists the shapes).
 *
 * <p>Guarantees: this callback never throws Spring AI's {@code ToolExecutionException}, so a {@code
 * ToolExecutionExceptionProcessor} never turns an outcome into a guess; it never retries by itself;
 * a call of a step already answered sends nothing and returns the journaled answer, marked
 * replayed; an unknown outcome reaches the model as unknown, never as success.
 *
 * <p>Not guaranteed: that the model obeys "do not repeat". A repeated call with the same arguments
 * is the same step (with the default identity) and so cannot cause a second effect; a call with
 * other arguments is a new action.
 *
 * <p>Throws (and so fails the chat call, with nothing sent) only for a host error: no workflow id
 * in the tool context, a step id the journal cannot take, a journal that cannot be written.
 */
public final class ToolLedgerToolCallback implements ToolCallback {
  private final ToolLedgerClient client;
  private final ToolDefinition definition;
  private final StepIdentity steps;

  ToolLedgerToolCallback(ToolLedgerClient client, ToolDefinition definition, StepIdentity steps) {
    this.client = Objects.requireNonNull(client, "client");
    this.definition = Objects.requireNonNull(definition, "definition");
    this.steps = Objects.requireNonNull(steps, "steps");
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return definition;
  }

  /**
   * Refused: without a tool context there is no workflow id, and without one there is no key that
   * survives a restart.
   */
  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  @Override
  public String call(String toolInput, @Nullable ToolContext toolContext) {
    Map<String, Object> context = hostContext(toolContext);
    Object workflow = context.get(ToolLedgerTools.WORKFLOW_ID);
    if (!(workflow instanceof String workflowId) || workflowId.isBlank()) {
      throw new IllegalStateException(
          "tool "
              + definition.name()
              + " needs the run's workflow id in the tool context: add"
              + " .toolContext(ToolLedgerTools.toolContext(workflowId)) to the ChatClient request");
    }
    JsonNode arguments;
    try {
      arguments = Json.parse(toolInput == null || toolInput.isBlank() ? "{}" : toolInput);
    } catch (MalformedJsonException e) {
      // Nothing to journal: these are not parameters of any action.
      return ModelAnswers.rejected(
          ProblemDetails.of(
              ProblemType.MALFORMED_JSON,
              "the tool arguments are not valid JSON; nothing was done"));
    }
    String stepId =
        steps.stepId(new ToolInvocation(workflowId, definition.name(), arguments, context));
    Action action = Action.of(workflowId, stepId, definition.name(), arguments);
    Outcome outcome;
    try {
      outcome = client.call(action);
    } catch (ActionConflictException e) {
      return ModelAnswers.rejected(
          ProblemDetails.of(
              ProblemType.KEY_REUSED,
              "this step of the run was already taken by a call of "
                  + e.recorded().action().tool()
                  + " with other arguments; nothing was sent. The recorded call stands."));
    }
    return ModelAnswers.of(outcome);
  }

  /** The host's entries: Spring AI adds the conversation so far, which is not the host's. */
  private static Map<String, Object> hostContext(@Nullable ToolContext toolContext) {
    Map<String, Object> context = new LinkedHashMap<>();
    if (toolContext != null) {
      toolContext
          .getContext()
          .forEach(
              (key, value) -> {
                if (value != null && !ToolContext.TOOL_CALL_HISTORY.equals(key)) {
                  context.put(key, value);
                }
              });
    }
    return context;
  }

  @Override
  public String toString() {
    return "ToolLedgerToolCallback[" + definition.name() + "]";
  }
}
