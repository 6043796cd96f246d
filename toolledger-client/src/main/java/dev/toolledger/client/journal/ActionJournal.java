package dev.toolledger.client.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.StoredResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The agent host's durable record of the actions it intends to take, each with the operation key
 * the journal minted for it, written before the action is first sent.
 *
 * <p>What an implementation guarantees:
 *
 * <ul>
 *   <li>{@link #record(Action)} is durable when it returns, so a crash right after it cannot lose
 *       the key of an action that may then be sent.
 *   <li>One (workflow id, step id) has one key forever: recording it again, from any thread or
 *       process, before or after a restart, returns the stored entry. A uniqueness constraint
 *       decides between concurrent recorders, never a check-then-insert.
 *   <li>Keys are minted from a cryptographically strong random source with at least 128 bits; they
 *       are never taken from the caller or the model.
 *   <li>{@link ActionStatus#COMPLETED} and {@link ActionStatus#REJECTED} are final: later marks do
 *       not change them.
 * </ul>
 *
 * <p>What it does not do: send anything, or decide whether an action took effect.
 */
public interface ActionJournal extends AutoCloseable {

  /** Opens (creating if needed) a SQLite journal file with the default options. */
  static ActionJournal sqlite(Path file) {
    return SqliteActionJournal.builder(file).open();
  }

  /**
   * Records an action before its first send and returns its entry with a new key; or, when its
   * (workflow id, step id) is already recorded with the same intent, returns the stored entry
   * unchanged, whatever its status. {@link Recorded#isNew()} tells the two apart.
   *
   * @throws ActionConflictException when the step is recorded with another tool or other parameters
   */
  Recorded record(Action action);

  Optional<JournalEntry> find(String workflowId, String stepId);

  Optional<JournalEntry> find(OperationKey key);

  /** Every action of a workflow, in the order they were first recorded. */
  List<JournalEntry> entries(String workflowId);

  /**
   * The workflow's {@link ActionStatus#PENDING} and {@link ActionStatus#UNKNOWN} actions, in the
   * order they were first recorded.
   */
  List<JournalEntry> unfinished(String workflowId);

  /** Workflows that have at least one unfinished action, for a host that restarts. */
  List<String> workflowsWithUnfinishedActions();

  /**
   * Keeps the recorded response of an unfinished action; a final entry is returned unchanged.
   *
   * @return the entry as it now stands
   * @throws JournalException when no action has this key
   */
  JournalEntry markCompleted(OperationKey key, StoredResponse response);

  /** Keeps the problem of a definitive refusal; a final entry is returned unchanged. */
  JournalEntry markRejected(OperationKey key, JsonNode problem);

  /** Notes that an answer is missing; a final entry is returned unchanged. */
  JournalEntry markUnknown(OperationKey key);

  @Override
  void close();
}
