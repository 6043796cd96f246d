package dev.toolledger.client;

import dev.toolledger.client.journal.Action;
import dev.toolledger.protocol.OperationKey;
import java.util.Objects;

/**
 * One unfinished action that {@link ToolLedgerClient#resume} drove, with the key it kept.
 *
 * @param key the key minted when the action was first recorded; resume never mints another
 */
public record ResumedAction(Action action, OperationKey key, Outcome outcome) {
  public ResumedAction {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
  }
}
