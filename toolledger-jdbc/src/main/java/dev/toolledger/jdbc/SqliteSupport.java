package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.jdbc.internal.Statements;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * SQLite has one writer at a time. Writers of this process queue on a fair in-process gate instead
 * of on SQLite's busy handler, whose sleep-and-poll loop wastes most of its waiting time; the busy
 * timeout still covers writers in other processes (a CLI command, a backup).
 *
 * <p>Transactions are driven with explicit {@code BEGIN IMMEDIATE}, {@code COMMIT} and {@code
 * ROLLBACK} statements. The driver's own transaction handling ({@code setAutoCommit(false)}, {@code
 * commit()}) is not used on purpose: it marks the connection as in a transaction before its {@code
 * BEGIN} runs, so a {@code BEGIN} that fails with SQLITE_BUSY leaves a pooled connection that
 * believes it is in a transaction while SQLite runs every later statement in auto-commit, and it
 * opens the next transaction eagerly right after each commit.
 *
 * <p>The driver is told of the transaction as its {@code BEGIN IMMEDIATE} runs (and told otherwise
 * again if it fails), and told that it ended as soon as it did ({@link SqliteDriverState}), as the
 * driver's own {@code setSavepoint()} does for the transaction that its {@code SAVEPOINT} opens.
 */
final class SqliteSupport extends DialectSupport {
  private static final int SQLITE_ERROR = 1;
  private static final int SQLITE_BUSY = 5;
  private static final int SQLITE_LOCKED = 6;
  private static final int SQLITE_READONLY = 8;
  // Primary result codes that mean the file, not the statement, is the trouble. SQLITE_READONLY
  // covers a connection that SQLite opened read-only because the file was not writable when the
  // connection was made (it stays read-only for good) and a file moved or replaced under an open
  // connection (SQLITE_READONLY_DBMOVED).
  private static final Set<Integer> STORAGE_FAULTS =
      Set.of(
          3, // SQLITE_PERM
          SQLITE_READONLY,
          10, // SQLITE_IOERR
          11, // SQLITE_CORRUPT
          13, // SQLITE_FULL
          14, // SQLITE_CANTOPEN
          15, // SQLITE_PROTOCOL
          26); // SQLITE_NOTADB

  private final Semaphore writer = new Semaphore(1, true);
  private final Statements statements = Statements.cached();
  private final long busyTimeoutMillis;

  SqliteSupport(Duration busyTimeout) {
    this.busyTimeoutMillis = busyTimeout.toMillis();
  }

  @Override
  SqlDialect kind() {
    return SqlDialect.SQLITE;
  }

  @Override
  Statements statements() {
    return statements;
  }

  @Override
  boolean serializesWriters() {
    return true;
  }

  @Override
  String nowMillis() {
    return "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";
  }

  @Override
  boolean enterWrite() throws InterruptedException {
    return writer.tryAcquire(busyTimeoutMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  void exitWrite() {
    writer.release();
  }

  @Override
  public void begin(Connection connection) throws SQLException {
    // Told first, so that the driver does not step its own BEGIN after this one either; a BEGIN
    // that fails leaves SQLite in auto-commit, and the driver is told so again.
    SqliteDriverState.transactionOpened(connection);
    try {
      statements.update(connection, "BEGIN IMMEDIATE", Statements.NO_PARAMETERS);
    } catch (SQLException | RuntimeException e) {
      SqliteDriverState.transactionEndedQuietly(connection);
      throw e;
    }
  }

  @Override
  public void commit(Connection connection) throws SQLException {
    statements.update(connection, "COMMIT", Statements.NO_PARAMETERS);
    // Quietly: a COMMIT that succeeded is never reported as failed. One that threw may have left
    // the transaction open; the caller's rollback() ends it and tells the driver then.
    SqliteDriverState.transactionEndedQuietly(connection);
  }

  @Override
  public boolean rollback(Connection connection) {
    try {
      statements.update(connection, "ROLLBACK", Statements.NO_PARAMETERS);
      return true;
    } catch (SQLException e) {
      // A ROLLBACK with no transaction active fails with the generic SQLITE_ERROR, told apart from
      // others only by its text. Asked by behaviour instead: a BEGIN succeeds exactly when no
      // transaction is open (SQLite already ended it, for example after a failed BEGIN or an I/O
      // error), and then the connection is clean once that empty transaction is rolled back.
      return (e.getErrorCode() & 0xFF) == SQLITE_ERROR && noTransactionActive(connection);
    } finally {
      SqliteDriverState.transactionEndedQuietly(connection);
    }
  }

  /** Whether SQLite holds no transaction on {@code connection}; leaves none open either way. */
  private boolean noTransactionActive(Connection connection) {
    try {
      statements.update(connection, "BEGIN", Statements.NO_PARAMETERS);
    } catch (SQLException stillOpen) {
      return false;
    }
    try {
      statements.update(connection, "ROLLBACK", Statements.NO_PARAMETERS);
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  @Override
  boolean isStorageFault(SQLException e) {
    // The driver reports SQLite's result code as the vendor code; an extended code keeps the
    // primary one in its low byte (SQLITE_IOERR_WRITE is 778).
    return STORAGE_FAULTS.contains(e.getErrorCode() & 0xFF);
  }

  /**
   * SQLITE_READONLY: a connection made while the file could not be opened for writing stays
   * read-only after the file is writable again, and one whose file moved stays bound to it.
   */
  @Override
  boolean isStaleConnection(SQLException fault) {
    return (fault.getErrorCode() & 0xFF) == SQLITE_READONLY;
  }

  @Override
  boolean isTransient(SQLException e) {
    // Extended result codes keep the primary code in the low byte (SQLITE_BUSY_SNAPSHOT is 517).
    int primary = e.getErrorCode() & 0xFF;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED || super.isTransient(e);
  }
}
