package dev.toolledger.core.store;

import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;

/** What the unique (tenant, key) constraint decided about a claim. */
public sealed interface ClaimResult {

  /**
   * This transaction owns the key and must execute.
   *
   * @param fence the fencing token of this claim (1 for a new claim)
   */
  record Claimed(long fence) implements ClaimResult {}

  /** The key was already taken by a committed operation; nothing was written. */
  record Existing(OperationRecord record) implements ClaimResult {}

  /**
   * Another open transaction holds the key and did not finish within the wait allowed; nothing was
   * written and the caller should hear "in progress".
   */
  record Contended() implements ClaimResult {}

  /**
   * The key's earlier operation expired and was swept, and its tombstone is still live at the
   * claim's time ({@link NewOperation#createdAt()}); nothing was written.
   */
  record Expired(Tombstone tombstone) implements ClaimResult {}
}
