package dev.toolledger.core.store;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.protocol.OperationKey;
import java.util.List;
import java.util.Optional;

/**
 * Durable storage of operations. Implementations keep each record under a unique (tenant, key)
 * constraint and run {@link #inTransaction} as one atomic database transaction.
 */
public interface LedgerStore extends AutoCloseable {

  SqlDialect dialect();

  /** A committed record, read without taking any write lock. */
  Optional<OperationRecord> find(TenantId tenant, OperationKey key);

  /**
   * The tombstone an expired and swept operation left for this key, live or not (a tombstone past
   * its window stays until the sweeper prunes it), read without taking any write lock.
   */
  Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key);

  /**
   * Whether {@link LedgerTransaction#claim} tells a new key from a recorded one at no cost beyond
   * what claiming a new key costs anyway, and a transaction whose claim finds the key recorded
   * writes nothing (so it is not a write transaction). When true, the engine skips its read of the
   * key before the transaction for a transactional tool (unless a new-operation rate limit shared
   * in the database needs to know that the operation is new first): a new key saves a round trip, a
   * replay is answered from the claim's read. When false, a replay must be answered before any
   * write transaction begins (SQLite: a replay must never take the database's only write lock).
   */
  default boolean decidesClaimInTransaction() {
    return false;
  }

  /** The recorded steps of an operation, oldest first. */
  List<HistoryEntry> history(TenantId tenant, OperationKey key);

  /** Leased claims whose lease ran out by the database's clock, oldest first. */
  List<ExpiredClaim> expiredClaims(int limit);

  /**
   * Runs {@code work} in one write transaction and commits it; if {@code work} throws, the
   * transaction is rolled back and the exception is rethrown.
   *
   * @throws TransientStoreException when the database refused the transaction for a passing reason
   *     (a busy lock, a serialization failure, a deadlock, a dropped connection); the transaction
   *     left nothing behind and may be run again
   */
  <T> T inTransaction(TransactionWork<T> work);

  @Override
  void close();
}
