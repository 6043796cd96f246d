package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.store.UncertainCommitException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failure on the ledger's database means for the caller: a storage fault ({@link
 * StoreUnavailableException}, after the connections it may have poisoned were thrown away), an
 * error a fresh attempt may not meet ({@link TransientStoreException}), or a plain {@link
 * StoreException}. Recognised by SQLState and vendor code ({@link DialectSupport}), never by
 * message text.
 */
final class StorageFaults {
  /** The store's logger: operators filter the store's lines by its name. */
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLedgerStore.class);

  private final StoreConnections connections;
  private final DialectSupport dialect;

  StorageFaults(StoreConnections connections) {
    this.connections = connections;
    this.dialect = connections.dialect();
  }

  /** The failure of a read or write outside a transaction's work, while {@code doing}. */
  RuntimeException translate(SQLException e, String doing) {
    SQLException fault = dialect.storageFault(e);
    if (fault != null) {
      return unavailable(fault, "the ledger's storage failed while " + doing);
    }
    if (dialect.isTransient(e)) {
      return new TransientStoreException(
          "the database asked for a retry while " + doing + " (SQLState " + e.getSQLState() + ")",
          e);
    }
    return new StoreException(
        "database error while "
            + doing
            + " (SQLState "
            + e.getSQLState()
            + ", code "
            + e.getErrorCode()
            + "): "
            + e.getMessage(),
        e);
  }

  /** What the caller of a write transaction gets for whatever its work (or the store) threw. */
  RuntimeException translateWork(Throwable failure) {
    if (failure instanceof StoreUnavailableException unavailable) {
      return unavailable;
    }
    if (failure instanceof UncertainCommitException uncertain) {
      return uncertain; // already says what it knows: the commit may have happened
    }
    SQLException sql = findSqlException(failure);
    if ((failure instanceof WrappedSqlException || failure instanceof SQLException)
        && sql != null) {
      // The store's own statement (a claim, a record, BEGIN, COMMIT) failed.
      return translate(sql, "writing");
    }
    if (sql != null && dialect.isTransient(sql)) {
      return new TransientStoreException(
          "the database asked for a retry (SQLState "
              + sql.getSQLState()
              + ", code "
              + sql.getErrorCode()
              + ")",
          failure);
    }
    if (failure instanceof RuntimeException runtime) {
      return runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure instanceof SQLException e) {
      return translate(e, "writing");
    }
    return new StoreException("a ledger transaction failed: " + failure, failure);
  }

  /**
   * A tool's failure is the ledger's when the transaction's connection met a storage fault, by the
   * tool's statement or the store's: whatever the tool made of the SQLException, the storage
   * failed. Any other exception of the tool stays the tool's.
   */
  Throwable unavailableIfFaulted(JdbcTransaction transaction, Throwable failure) {
    SQLException fault = transaction.storageFault();
    if (fault == null || failure instanceof StoreUnavailableException) {
      return failure;
    }
    StoreUnavailableException unavailable =
        unavailable(fault, "the ledger's storage failed during the transaction");
    if (failure != fault) {
      unavailable.addSuppressed(failure);
    }
    return unavailable;
  }

  /**
   * Throws away whatever a storage fault may have poisoned ({@link StoreConnections#evictAll}) and
   * says so.
   */
  StoreUnavailableException unavailable(SQLException fault, String what) {
    connections.evictAll();
    LOG.atWarn()
        .addKeyValue("sqlState", fault.getSQLState())
        .addKeyValue("code", fault.getErrorCode())
        .log("storage fault on {}; pooled connections discarded", connections.description());
    return new StoreUnavailableException(
        what
            + " (SQLState "
            + fault.getSQLState()
            + ", code "
            + fault.getErrorCode()
            + "); nothing was recorded. The node recovers by itself once the storage does",
        fault);
  }

  /** The first SQLException in {@code failure}'s chain of causes, or null. */
  static SQLException findSqlException(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e) {
        return e;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }
}
