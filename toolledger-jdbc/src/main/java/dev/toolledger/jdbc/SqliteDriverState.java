package dev.toolledger.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConnection;

/**
 * What the SQLite driver believes of a connection's transaction, kept in step with the transactions
 * that the store opens and ends with its own statements.
 *
 * <p>While the driver believes that a connection is in auto-commit, it follows every statement that
 * runs to completion with two more of its own ({@code DB.ensureAutoCommit}): a {@code BEGIN}, which
 * succeeds only when SQLite holds no transaction, and then a {@code COMMIT} of that empty
 * transaction. Inside a transaction that the store began with {@code BEGIN IMMEDIATE} the {@code
 * BEGIN} fails every time and nothing else happens; on a connection that only reads, both run and
 * commit nothing. Stepping them for the ledger's own statements and its tool's was about 2% of a
 * new operation's CPU samples (async-profiler, keyed-create on SQLite FULL; git history of
 * docs/benchmarks.md).
 *
 * <p>The belief is the {@code autoCommit} field of the driver's connection config. Setting it does
 * not run a statement: the driver's own {@code setSavepoint()} sets it the same way when its {@code
 * SAVEPOINT} opens a transaction. A connection that is not the xerial driver's, or that a pool
 * cannot unwrap to it, is left alone: the statements above are then only a cost.
 */
final class SqliteDriverState {
  private SqliteDriverState() {}

  /**
   * As {@code BEGIN IMMEDIATE} runs: the driver stops stepping its {@code BEGIN} after each
   * statement, which would fail inside this transaction anyway.
   */
  static void transactionOpened(Connection connection) throws SQLException {
    setAutoCommit(connection, false);
  }

  /**
   * After {@code COMMIT} or {@code ROLLBACK}, or a {@code BEGIN} that failed: SQLite is in
   * auto-commit again, and so is the driver's belief, whatever it was before (a tool's {@code
   * setSavepoint()} inside the transaction sets it to false too). Quietly: the transaction's
   * outcome is what its own statement said; a connection that cannot even be unwrapped is closed or
   * broken, and its next statement fails.
   */
  static void transactionEndedQuietly(Connection connection) {
    try {
      setAutoCommit(connection, true);
    } catch (SQLException e) {
      // See above: nothing to undo, and nothing that this transaction reports changes.
    }
  }

  /**
   * For a connection that only ever runs single reads in auto-commit: SQLite still ends each read's
   * implicit transaction when the statement is reset, which the driver does when a read finds no
   * row and closing the result set does otherwise. Undone by {@link #restoredQuietly} before the
   * connection goes back to a pool that may lend it to an application.
   */
  static void readsOnly(Connection connection) throws SQLException {
    setAutoCommit(connection, false);
  }

  /**
   * Undoes {@link #readsOnly} before the connection is closed. Quietly: a connection that cannot
   * even be unwrapped is broken, and no pool lends a broken connection again.
   */
  static void restoredQuietly(Connection connection) {
    transactionEndedQuietly(connection);
  }

  private static void setAutoCommit(Connection connection, boolean autoCommit) throws SQLException {
    SQLiteConnection sqlite = driverConnection(connection);
    if (sqlite != null) {
      sqlite.getConnectionConfig().setAutoCommit(autoCommit);
    }
  }

  private static final Class<?> DRIVER_CONNECTION = SQLiteConnection.class;

  /**
   * The driver's connection beneath any pool's, or null. Checked rather than cast: a wrapper may
   * say that it wraps one and still hand back a wrapper of its own.
   */
  private static SQLiteConnection driverConnection(Connection connection) throws SQLException {
    if (connection instanceof SQLiteConnection sqlite) {
      return sqlite;
    }
    if (!connection.isWrapperFor(DRIVER_CONNECTION)) {
      return null;
    }
    return connection.unwrap(DRIVER_CONNECTION) instanceof SQLiteConnection sqlite ? sqlite : null;
  }
}
