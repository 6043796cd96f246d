package dev.toolledger.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.journal.JournalException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One pass of an agent's run over the journal: decides which step, and so which operation key, each
 * tool call of the run is, then hands the step to the {@link ToolLedgerClient}. The agent framework
 * integrations start one pass per invocation of the agent (one user request, or its replay after a
 * restart); the run id is the journal's workflow id.
 *
 * <p>The same-action rule:
 *
 * <ul>
 *   <li>A call identical to an earlier call of this pass (same tool, arguments equal as RFC 8785
 *       canonical JSON) whose step is still unfinished in the journal ({@code PENDING}: unanswered
 *       or in progress; {@code UNKNOWN}) is that earlier step again: same key, so the client
 *       answers it from the journal or looks the key up, and never executes it twice.
 *   <li>Every other call is a new action and takes the next position: step {@code call-1}, {@code
 *       call-2}, ... So after a definitive outcome (completed, refused, rejected) an identical call
 *       is a new action with a new key: two notes with one title are two notes.
 *   <li>A pass over a run the journal already holds (the host runs it again under the same run id
 *       after a restart) meets the recorded steps in the order they were recorded: its n-th new
 *       action is the recorded step {@code call-n}. The same call there gets the recorded key and
 *       outcome (or the key looked up, if the outcome is not known yet); another call there is
 *       refused with {@link ActionConflictException} and nothing is sent. Steps are found by their
 *       position, never by searching the journal for equal content.
 * </ul>
 *
 * <p>A refused call ({@link ActionConflictException}) or one the journal could not take does not
 * take a position. Calls of one pass are handled one at a time, in the order they arrive; with
 * concurrent tool execution that order follows thread scheduling, so a replay can meet a conflict
 * (a refusal, never a second execution).
 */
public final class AgentRun {
  /** Step ids are this prefix and the position in the run, from 1. */
  public static final String STEP_PREFIX = "call-";

  private final ToolLedgerClient client;
  private final String runId;
  private final List<Action> taken = new ArrayList<>();

  private AgentRun(ToolLedgerClient client, String runId) {
    this.client = client;
    this.runId = runId;
  }

  /**
   * Starts a pass of the run {@code runId} through {@code client}: its first new action is step
   * {@code call-1}.
   *
   * @throws IllegalArgumentException when the run id is not a usable journal workflow id (blank,
   *     over {@value Action#MAX_ID_LENGTH} characters, control characters); the message names the
   *     rule
   */
  public static AgentRun start(ToolLedgerClient client, String runId) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(runId, "runId");
    try {
      Action.of(runId, STEP_PREFIX + 1, "probe", NullNode.getInstance());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the run id is not usable as a journal workflow id: "
              + e.getMessage().replace("workflowId", "run id"),
          e);
    }
    return new AgentRun(client, runId);
  }

  /**
   * Continues the run {@code runId} after its first {@code steps} journaled steps, for a host whose
   * conversation already holds them with their results (a chat memory): they count as taken, so the
   * pass's next new action is step {@code call-(steps+1)}, and a repeat of one of them that is
   * still unfinished is that step again.
   *
   * @throws IllegalArgumentException when the run id is not usable or {@code steps} is negative
   * @throws IllegalStateException when the journal holds fewer than {@code steps} steps of the run
   */
  public static AgentRun continueAfter(ToolLedgerClient client, String runId, int steps) {
    if (steps < 0) {
      throw new IllegalArgumentException("steps must not be negative");
    }
    AgentRun run = start(client, runId);
    for (int position = 1; position <= steps; position++) {
      String stepId = STEP_PREFIX + position;
      JournalEntry entry =
          client
              .journal()
              .find(runId, stepId)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "the conversation names step "
                              + stepId
                              + " of run "
                              + runId
                              + ", which the journal does not hold"));
      run.taken.add(entry.action());
    }
    return run;
  }

  /** The position of a step id of a run ({@code call-3} is 3), or 0 when it is not one. */
  public static int position(String stepId) {
    if (stepId == null || !stepId.startsWith(STEP_PREFIX)) {
      return 0;
    }
    try {
      int position = Integer.parseInt(stepId.substring(STEP_PREFIX.length()));
      return Math.max(position, 0);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  public String runId() {
    return runId;
  }

  /**
   * The step this call is, by the rule above, driven to an outcome by the client.
   *
   * @throws ActionConflictException when the position is recorded as another call (a replay that
   *     went another way); nothing was sent and the position stays free
   * @throws JournalException when the journal cannot take the step; nothing was sent
   * @throws IllegalArgumentException when the tool name or the arguments cannot be journaled
   */
  public synchronized Step call(String tool, JsonNode parameters) {
    Action next = Action.of(runId, STEP_PREFIX + (taken.size() + 1), tool, parameters);
    Optional<Action> unfinished = unfinishedIdenticalStep(next);
    if (unfinished.isPresent()) {
      return new Step(unfinished.get(), client.call(unfinished.get()));
    }
    Outcome outcome = client.call(next); // a conflict or journal failure leaves the position free
    taken.add(next);
    return new Step(next, outcome);
  }

  /** The positions this pass has taken, in order. */
  public synchronized List<Action> steps() {
    return List.copyOf(taken);
  }

  private Optional<Action> unfinishedIdenticalStep(Action call) {
    for (int i = taken.size() - 1; i >= 0; i--) {
      Action earlier = taken.get(i);
      if (earlier.sameIntentAs(call)) {
        // Only the latest identical step can be unfinished: a later one was taken because it was
        // final, and final stays final.
        Optional<JournalEntry> entry = client.journal().find(runId, earlier.stepId());
        return entry.isPresent() && !entry.get().status().isFinal()
            ? Optional.of(earlier)
            : Optional.empty();
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "AgentRun[" + runId + ", " + taken.size() + " steps]";
  }

  /**
   * A call of the run and what became of it.
   *
   * @param action the step (run id, step id, tool, parameters); its journal entry holds the key
   * @param outcome the client's outcome for the step
   */
  public record Step(Action action, Outcome outcome) {
    public Step {
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(outcome, "outcome");
    }

    public String stepId() {
      return action.stepId();
    }
  }
}
