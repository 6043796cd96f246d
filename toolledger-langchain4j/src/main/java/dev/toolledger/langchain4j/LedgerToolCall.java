package dev.toolledger.langchain4j;

import dev.toolledger.client.Outcome;
import java.util.Objects;

/**
 * What one tool call of a LangChain4j agent became: the step of the run it was mapped to and the
 * client's outcome for that step. It is the {@link
 * dev.langchain4j.service.tool.ToolExecutionResult#result() result object} of every execution, so a
 * host finds it as {@code ToolExecution.resultObject()} in {@code Result.toolExecutions()} and in
 * tool execution listeners, without parsing the text the model was given.
 *
 * @param runId the run (the journal's workflow id) the call belongs to
 * @param stepId the step of the run, for example {@code call-1}; its journal entry holds the key
 * @param tool the ToolLedger tool that was called
 * @param outcome {@link Outcome.Completed}, {@link Outcome.Rejected} or {@link Outcome.Unknown}
 */
public record LedgerToolCall(String runId, String stepId, String tool, Outcome outcome) {
  public LedgerToolCall {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(stepId, "stepId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** Whether the tool recorded a success (a {@link Outcome.Completed} with a status below 400). */
  public boolean succeeded() {
    return outcome instanceof Outcome.Completed completed && completed.isSuccess();
  }

  /** Whether the outcome is not known: the effect may or may not have happened. */
  public boolean unknown() {
    return outcome instanceof Outcome.Unknown;
  }

  /** Without the outcome's body, which may be sensitive. */
  @Override
  public String toString() {
    return "LedgerToolCall[runId="
        + runId
        + ", stepId="
        + stepId
        + ", tool="
        + tool
        + ", outcome="
        + outcome
        + "]";
  }
}
