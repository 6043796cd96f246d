package dev.toolledger.core.engine;

import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.engine.ExecutionOutcome.NotExecuted;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.store.LedgerStore;
import java.time.Duration;
import java.util.Optional;

/**
 * Answers a request whose key is already recorded: the recorded outcome for the same intent, {@link
 * KeyReused} for another; a key still in progress is waited for, up to the caller's deadline.
 */
final class RecordedKeys {
  private final LedgerStore store;
  private final EngineConfig config;

  RecordedKeys(LedgerStore store, EngineConfig config) {
    this.store = store;
    this.config = config;
  }

  /**
   * @param deadline {@link System#nanoTime()} past which an operation in progress is answered
   *     {@link InProgress}
   */
  ExecutionOutcome answer(OperationRecord record, OperationIntent intent, long deadline) {
    OperationRecord current = record;
    long pause = Math.max(1, config.retryBase().toMillis());
    while (true) {
      if (current.intent().isEmpty()) {
        return new NotExecuted(current);
      }
      if (!current.intent().get().equals(intent)) {
        return new KeyReused(current.intent().get().tool());
      }
      switch (current.state()) {
        case COMPLETED -> {
          return new Replayed(current);
        }
        case UNKNOWN -> {
          return new OutcomeUnknown(current);
        }
        case NOT_EXECUTED -> {
          return new NotExecuted(current);
        }
        case IN_PROGRESS -> {
          // waits below
        }
        default -> throw new IllegalStateException("unhandled state " + current.state());
      }
      // In progress: wait for the executor to finish, polling with a growing pause, but never
      // past the caller's deadline and never by pretending the operation is done.
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return new InProgress(config.retryAfter());
      }
      Writes.sleep(Math.min(pause, Duration.ofNanos(remaining).toMillis() + 1));
      pause = Math.min(pause * 2, 250);
      Optional<OperationRecord> again = store.find(current.tenant(), current.key());
      if (again.isEmpty()) {
        // The claim was rolled back (its executor failed); the key is free again, but this caller
        // did not claim it. Report in progress so that it retries rather than guessing.
        return new InProgress(config.retryAfter());
      }
      current = again.get();
    }
  }
}
