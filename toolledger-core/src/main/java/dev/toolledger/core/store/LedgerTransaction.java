package dev.toolledger.core.store;

import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.identity.TenantId;
import dev.toolledger.core.operation.StoredResponse;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;

/** The operations a ledger write transaction offers the engine. */
public interface LedgerTransaction {

  /**
   * The transaction's connection, guarded so that commit, rollback and close are refused: the store
   * owns the boundary.
   */
  Connection connection();

  SqlDialect dialect();

  /**
   * Claims a key with an {@code INSERT} that the unique (tenant, key) constraint arbitrates. A
   * concurrent claimer of the same key waits for this transaction to end, up to {@code maxWait}.
   */
  ClaimResult claim(NewOperation operation, Duration maxWait);

  /** Records the outcome of an operation this transaction claimed. */
  void complete(
      TenantId tenant,
      OperationKey key,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt);
}
