package dev.toolledger.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.toolledger.client.journal.Action;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps of one run of an agent, as the tool calls of one AI Service invocation reveal them.
 *
 * <p>A call becomes the step at its position among the run's distinct intents ({@code call-1},
 * {@code call-2}, ...). A call with the same tool and the same (canonical) arguments as an earlier
 * call of the run is that earlier step again: the model repeating a call after an error or an
 * unknown outcome, or a guardrail's reprompt, gets the earlier step's key and so its outcome, never
 * a second execution. The model's own tool-call id is deliberately not used: a model that is asked
 * again (after a restart, a reprompt) mints new ids, while the position of an intent in a run that
 * is replayed from its start stays the same.
 */
final class AgentRun {
  private static final String STEP_PREFIX = "call-";

  private final String runId;
  private final List<Action> steps = new ArrayList<>();

  AgentRun(String runId) {
    this.runId = runId;
  }

  String runId() {
    return runId;
  }

  /** The step for this call: an earlier step with the same intent, or the next position. */
  synchronized Action stepFor(String tool, JsonNode parameters) {
    Action next = Action.of(runId, STEP_PREFIX + (steps.size() + 1), tool, parameters);
    for (Action step : steps) {
      if (step.sameIntentAs(next)) {
        return step;
      }
    }
    steps.add(next);
    return next;
  }

  /** Validates a run id by the journal's rules for workflow ids; the message names the option. */
  static String requireValid(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new IllegalStateException(
          "no run id for this AI Service invocation: pass InvocationParameters.from("
              + "ToolLedgerToolProvider.RUN_ID, runId) to the AI Service method, or configure"
              + " ToolLedgerToolProvider.Builder.runId(...); the run id must be the same when the"
              + " run is replayed after a restart");
    }
    try {
      Action.of(runId, STEP_PREFIX + 1, "probe", NullNode.getInstance());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "the run id is not usable as a journal workflow id: "
              + e.getMessage().replace("workflowId", "run id"));
    }
    return runId;
  }
}
