package dev.toolledger.core.engine;

import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;

/** How {@link LedgerEngine#resolve} answered. */
public sealed interface ResolveOutcome {

  /** The key was never seen; it is now fenced as {@code NOT_EXECUTED}. */
  record Fenced(OperationRecord record) implements ResolveOutcome {}

  /** The key is known; this is its current state and outcome (nothing changed). */
  record Current(OperationRecord record) implements ResolveOutcome {}

  /** The {@code UNKNOWN} operation was resolved as asked. */
  record Resolved(OperationRecord record) implements ResolveOutcome {}

  /** An explicit resolution was asked of an operation that is not {@code UNKNOWN}. */
  record NotResolvable(OperationRecord record) implements ResolveOutcome {}

  /**
   * The key's operation expired and was swept; its tombstone is live. Nothing changed: the key is
   * already guarded, and its outcome is no longer available.
   */
  record Expired(Tombstone tombstone) implements ResolveOutcome {}

  /** An explicit resolution was asked for a key that does not exist. */
  record NothingToResolve() implements ResolveOutcome {}
}
