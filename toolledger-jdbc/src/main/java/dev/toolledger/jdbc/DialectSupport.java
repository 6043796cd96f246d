package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.jdbc.internal.Statements;
import dev.toolledger.jdbc.migration.TransactionControl;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientException;

/** What differs between the databases a {@link JdbcLedgerStore} runs on. */
abstract class DialectSupport implements TransactionControl {

  abstract SqlDialect kind();

  /** Where the hot path's statements come from. */
  Statements statements() {
    return PLAIN;
  }

  private static final Statements PLAIN = Statements.plain();

  /**
   * An SQL expression for the database clock's current time in epoch milliseconds. Leases and
   * outbox due times are judged by it, so nodes with skewed clocks agree.
   */
  abstract String nowMillis();

  /**
   * Whether a write transaction holds the only write lock of the whole database from its start
   * (SQLite's {@code BEGIN IMMEDIATE}). Then no other transaction, in this process or another, can
   * insert a key between this transaction's read of it and its own insert, so a claim can be a read
   * and the record a single insert at completion.
   */
  boolean serializesWriters() {
    return false;
  }

  /**
   * The row-locking clause that lets several relays claim disjoint batches of a queue without
   * waiting for each other; empty where one writer at a time makes it unnecessary.
   */
  String skipLocked() {
    return "";
  }

  /**
   * Waits for this process's turn to write, if the database allows only one writer.
   *
   * @return false when the turn did not come within the store's busy timeout
   */
  abstract boolean enterWrite() throws InterruptedException;

  abstract void exitWrite();

  /** Starts a write transaction on a pooled connection. */
  @Override
  public void begin(Connection connection) throws SQLException {
    connection.setAutoCommit(false);
  }

  @Override
  public void commit(Connection connection) throws SQLException {
    connection.commit();
  }

  /**
   * Rolls back the open transaction, if any.
   *
   * @return false when the connection's state is no longer known and it must not be reused
   */
  @Override
  public boolean rollback(Connection connection) {
    try {
      connection.rollback();
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /** Whether this error means the claim's wait for a concurrent claimer ran out. */
  boolean isClaimWaitExceeded(SQLException e) {
    return false;
  }

  /**
   * Whether this error, judged by SQLState or vendor code alone, says the storage itself failed
   * (I/O error, read-only or missing file, full disk, a server refusing writes) rather than the
   * statement. After such an error the store throws its pooled connections and cached statements
   * away: they may be bound to a file that moved, or have been opened read-only during the fault.
   */
  abstract boolean isStorageFault(SQLException e);

  /**
   * Whether a storage fault may be the connection's alone, so that the same work on a fresh
   * connection can succeed at once.
   */
  boolean isStaleConnection(SQLException fault) {
    return false;
  }

  /** The first storage fault in an exception's causes and chained SQL exceptions, or null. */
  final SQLException storageFault(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
      if (t instanceof SQLException e) {
        for (SQLException next = e; next != null && depth < 32; depth++) {
          if (isStorageFault(next)) {
            return next;
          }
          SQLException chained = next.getNextException();
          next = chained == next ? null : chained;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  /** Whether a fresh attempt of the whole transaction may succeed. */
  boolean isTransient(SQLException e) {
    return e instanceof SQLTransientException;
  }
}
