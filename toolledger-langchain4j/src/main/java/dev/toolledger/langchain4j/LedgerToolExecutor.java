package dev.toolledger.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.toolledger.client.AgentRun;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import java.util.Map;

/**
 * Executes one ToolLedger tool for one run: the run ({@link AgentRun}) maps the call to its step by
 * the same-action rule and hands the step to the client, which journals it (one key per step, for
 * good), sends it, retries it and answers it.
 *
 * <p>It never throws for a lost answer, a timeout or a server that is down: the client has already
 * retried those, with the same key, as far as its policy allows, and what is left is {@link
 * Outcome.Unknown}, which goes to the model as "not known, do not repeat". Throwing would hand the
 * failure to LangChain4j's error handler, whose default invites the model to try again.
 */
final class LedgerToolExecutor implements ToolExecutor {
  static final String ATTRIBUTE_RUN = "toolledger.runId";
  static final String ATTRIBUTE_STEP = "toolledger.stepId";
  static final String ATTRIBUTE_OUTCOME = "toolledger.outcome";
  static final String ATTRIBUTE_REPLAYED = "toolledger.replayed";

  private final AgentRun run;
  private final String tool;

  LedgerToolExecutor(AgentRun run, String tool) {
    this.run = run;
    this.tool = tool;
  }

  @Override
  public String execute(ToolExecutionRequest request, Object memoryId) {
    return executeWithContext(request, null).resultText();
  }

  /**
   * @throws ToolArgumentsException when the model's arguments are not JSON, or when the step is
   *     journaled as a different call ({@link ActionConflictException} as the cause). LangChain4j's
   *     default arguments error handler rethrows the cause, so the AI Service call ends with {@link
   *     ActionConflictException} (or {@link IllegalArgumentException} for arguments that are not a
   *     JSON object) and nothing is sent.
   */
  @Override
  public ToolExecutionResult executeWithContext(
      ToolExecutionRequest request, InvocationContext context) {
    JsonNode parameters = arguments(request.arguments());
    AgentRun.Step step;
    try {
      step = run.call(tool, parameters);
    } catch (ActionConflictException conflict) {
      throw new ToolArgumentsException(conflict.getMessage(), conflict);
    }
    Outcome outcome = step.outcome();
    LedgerToolCall call = new LedgerToolCall(run.runId(), step.stepId(), tool, outcome);
    return ToolExecutionResult.builder()
        .isError(!call.succeeded())
        .result(call)
        .resultText(ModelText.of(outcome))
        .attributes(
            Map.of(
                ATTRIBUTE_RUN, call.runId(),
                ATTRIBUTE_STEP, call.stepId(),
                ATTRIBUTE_OUTCOME, ModelText.kind(outcome),
                ATTRIBUTE_REPLAYED,
                    outcome instanceof Outcome.Completed completed && completed.replayed()))
        .build();
  }

  private JsonNode arguments(String raw) {
    if (raw == null || raw.isBlank()) {
      return Json.object(); // some models send nothing for a call without arguments
    }
    JsonNode parsed;
    try {
      parsed = Json.parse(raw);
    } catch (MalformedJsonException e) {
      String message = "the arguments of the call of " + tool + " are not JSON; nothing was sent";
      // LangChain4j's handlers see the cause: keep the message on it, not the parser's text.
      throw new ToolArgumentsException(message, new IllegalArgumentException(message, e));
    }
    if (!parsed.isObject()) {
      String message =
          "the arguments of the call of " + tool + " must be a JSON object; nothing was sent";
      throw new ToolArgumentsException(message, new IllegalArgumentException(message));
    }
    return parsed;
  }
}
