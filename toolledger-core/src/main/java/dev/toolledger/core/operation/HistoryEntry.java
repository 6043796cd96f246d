package dev.toolledger.core.operation;

import dev.toolledger.protocol.OperationState;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One step of an operation's life: when, from which state to which, why, and who did it.
 *
 * @param actor the node that acted ({@code node:NAME}) or the token that asked ({@code token:ID})
 * @param fence the fencing token in force when the step was taken
 */
public record HistoryEntry(
    Instant at,
    Optional<OperationState> from,
    OperationState to,
    String cause,
    String actor,
    long fence) {
  public HistoryEntry {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(actor, "actor");
  }
}
