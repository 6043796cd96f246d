package dev.toolledger.springai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.AgentRun;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.ProblemType;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.lang.Nullable;

/**
 * A ToolLedger tool as a Spring AI {@link ToolCallback}. Build it with {@link ToolLedgerTools}.
 *
 * <p>Each call the model asks for becomes a step of the run named by the tool context's workflow id
 * ({@link ToolLedgerTools#WORKFLOW_ID}), by the same-action rule of {@link AgentRun}: a call
 * identical to an earlier call of the request whose outcome is still unknown or unanswered is that
 * step again; any other call is the run's next step ({@code call-1}, {@code call-2}, ...), which is
 * the journaled step at that position when the run is replayed after a restart. {@link
 * ToolLedgerClient#call} then gives the step its key (the same for every later call of the step, in
 * this process or after a restart), sends it, retries it by the client's one {@code RetryPolicy},
 * and the outcome goes back to the model as one JSON object whose {@code outcome} is {@code
 * completed}, {@code refused}, {@code rejected} or {@code unknown} (docs/agents-spring-ai.md lists
 * the shapes).
 *
 * <p>Guarantees: this callback never throws Spring AI's {@code ToolExecutionException}, so a {@code
 * ToolExecutionExceptionProcessor} never turns an outcome into a guess; it never retries by itself;
 * a step already answered sends nothing and returns the journaled answer, marked replayed; an
 * unknown outcome reaches the model as unknown, never as success; a replayed run that asks for
 * something else at a journaled step is told {@code rejected} ({@code idempotency-key-reused}) and
 * nothing is sent.
 *
 * <p>Not guaranteed: that the model obeys "do not repeat". A repeat of an unknown call is the same
 * step and cannot cause a second effect; a repeat after a definitive outcome is a new action.
 *
 * <p>Throws (and so fails the chat call, with nothing sent) only for a host error: no {@link
 * ToolLedgerTools#toolContext(String)} in the request, a workflow id the journal cannot take, a
 * journal that cannot be written.
 */
public final class ToolLedgerToolCallback implements ToolCallback {
  private final ToolLedgerClient client;
  private final ToolDefinition definition;

  ToolLedgerToolCallback(ToolLedgerClient client, ToolDefinition definition) {
    this.client = Objects.requireNonNull(client, "client");
    this.definition = Objects.requireNonNull(definition, "definition");
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
    Map<String, Object> context = toolContext == null ? Map.of() : toolContext.getContext();
    Object workflow = context.get(ToolLedgerTools.WORKFLOW_ID);
    if (!(workflow instanceof String workflowId)
        || workflowId.isBlank()
        || !(context.get(ToolLedgerTools.RUN_PASS) instanceof RunPass pass)) {
      throw new IllegalStateException(
          "tool "
              + definition.name()
              + " needs the run's workflow id in the tool context: add"
              + " .toolContext(ToolLedgerTools.toolContext(workflowId)) to each ChatClient"
              + " request");
    }
    AgentRun run = pass.run(client, workflowId);
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
    try {
      return ModelAnswers.of(run.call(definition.name(), arguments).outcome());
    } catch (ActionConflictException e) {
      return ModelAnswers.rejected(
          ProblemDetails.of(
              ProblemType.KEY_REUSED,
              "this step of the run was already taken by a call of "
                  + e.recorded().action().tool()
                  + " with other arguments; nothing was sent. The recorded call stands."));
    }
  }

  @Override
  public String toString() {
    return "ToolLedgerToolCallback[" + definition.name() + "]";
  }
}
