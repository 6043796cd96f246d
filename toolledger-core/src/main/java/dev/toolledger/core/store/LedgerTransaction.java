package dev.toolledger.core.store;

import dev.toolledger.api.Outbox;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The operations a ledger write transaction offers the engine. Every change of an operation row
 * that follows a claim is conditional: on its state and, for leased claims, on its fencing token,
 * so a writer that lost its claim changes nothing and learns so from the return value.
 */
public interface LedgerTransaction {

  /**
   * The transaction's connection, guarded so that commit, rollback and close are refused: the store
   * owns the boundary.
   */
  Connection connection();

  SqlDialect dialect();

  /** The record as this transaction sees it (including its own changes). */
  Optional<dev.toolledger.core.operation.OperationRecord> find(TenantId tenant, OperationKey key);

  /** The key's tombstone as this transaction sees it, live or not. */
  Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key);

  /**
   * Claims a key for an effect inside this transaction: the key is read under a lock that every
   * claimer of the key takes (PostgreSQL: a transaction-scoped advisory lock on the key; SQLite:
   * the database's write lock), and a free key's record is inserted, complete, by {@link
   * #complete}, under the unique (tenant, key) constraint. A concurrent claimer of the same key
   * waits for this transaction to end, up to {@code maxWait}. A key whose tombstone is live at
   * {@code operation.createdAt()} is not claimed ({@link ClaimResult.Expired}).
   */
  ClaimResult claim(NewOperation operation, Duration maxWait);

  /**
   * Claims a key for an effect outside the database: the row is {@code IN_PROGRESS}, owned by
   * {@code lease.owner()} until the database's clock passes now + {@code lease.lease()}, with
   * fencing token 1. A key whose tombstone is live is not claimed, as with {@link #claim}.
   */
  ClaimResult claimLeased(NewOperation operation, LeaseClaim lease, Duration maxWait);

  /** Records the outcome of an operation this transaction claimed with {@link #claim}. */
  void complete(
      TenantId tenant,
      OperationKey key,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt);

  /**
   * Records the outcome of a leased operation if {@code fence} is still its fencing token and it is
   * still {@code IN_PROGRESS}.
   *
   * @return false when the claim was taken over: nothing changed
   */
  boolean completeFenced(
      TenantId tenant,
      OperationKey key,
      long fence,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt);

  /**
   * The key's current fencing token, or empty when the key has no record. A completion that found
   * its record already {@code COMPLETED} compares it with its own to tell its own earlier commit
   * (same fence) from a takeover's (a later fence).
   */
  java.util.OptionalLong fenceOf(TenantId tenant, OperationKey key);

  /**
   * Moves a leased {@code IN_PROGRESS} operation to {@code UNKNOWN} or {@code NOT_EXECUTED} if
   * {@code fence} is still current. {@code NOT_EXECUTED} is final and gets {@code expiresAt};
   * {@code UNKNOWN} is never swept and gets none.
   */
  boolean settleFenced(
      TenantId tenant,
      OperationKey key,
      long fence,
      OperationState to,
      Instant at,
      Optional<Instant> expiresAt);

  /** Deletes a leased {@code IN_PROGRESS} claim whose effect certainly did not happen. */
  boolean release(TenantId tenant, OperationKey key, long fence);

  /**
   * Takes over a leased {@code IN_PROGRESS} claim whose lease expired by the database's clock.
   *
   * @return the new fencing token ({@code fence + 1}), or empty when the claim changed meanwhile
   */
  OptionalLong takeOver(
      TenantId tenant, OperationKey key, long fence, String owner, Duration lease);

  /**
   * Records {@code NOT_EXECUTED} for a key never seen, so that a late request with it is refused.
   *
   * @return false when the key exists, or has a tombstone live at {@code at} (nothing changed)
   */
  boolean fenceUnseen(TenantId tenant, OperationKey key, Instant at, Instant expiresAt);

  /**
   * An operator's explicit resolution of an {@code UNKNOWN} operation.
   *
   * @return false when the operation is not {@code UNKNOWN} (nothing changed)
   */
  boolean resolveUnknown(
      TenantId tenant,
      OperationKey key,
      OperationState to,
      Optional<StoredResponse> response,
      Instant at,
      Instant expiresAt);

  /**
   * Deletes up to {@code limit} operations that are {@code COMPLETED} or {@code NOT_EXECUTED} and
   * whose {@code expiresAt} is at or before {@code now}, oldest first, with their history and their
   * delivered outbox events (pending and dead events stay). Each leaves a {@link Tombstone} until
   * its {@code expiresAt + tombstoneWindow}, unless that is already past. {@code IN_PROGRESS} and
   * {@code UNKNOWN} operations are never deleted, whatever their times say. Several transactions
   * (on several nodes) may sweep at once; each operation is deleted by one of them.
   *
   * @return how many operations were deleted (fewer than {@code limit}: nothing more is due)
   */
  int sweepExpired(Instant now, Duration tombstoneWindow, int limit);

  /**
   * Deletes up to {@code limit} tombstones whose window ended at or before {@code now}.
   *
   * @return how many were deleted
   */
  int pruneTombstones(Instant now, int limit);

  /** Appends a step to the operation's history. */
  void appendHistory(TenantId tenant, OperationKey key, HistoryEntry entry);

  /**
   * An outbox whose events commit with this transaction, attributed to this operation. Every call
   * for the same operation within one transaction returns the same outbox, so that its events get
   * distinct ids, and the ids are the same when the transaction is run again.
   */
  Outbox outbox(TenantId tenant, OperationKey key);
}
