package dev.toolledger.api;

import java.sql.Connection;
import java.time.Instant;

/** What a {@link TransactionalTool} may use while it runs inside the ledger's transaction. */
public interface TransactionContext {

  /** The authenticated tenant the operation belongs to. */
  TenantId tenant();

  /**
   * The transaction's connection. Commit, rollback, auto-commit changes, savepoints and close are
   * refused: the engine owns the transaction boundary.
   */
  Connection connection();

  /** Which SQL the connection speaks. */
  SqlDialect dialect();

  /** The engine clock's time for this attempt. */
  Instant now();

  /**
   * An outbox whose events are stored in this transaction: they exist if and only if the effect and
   * its operation record commit, and a relay delivers them afterwards.
   */
  Outbox outbox();
}
