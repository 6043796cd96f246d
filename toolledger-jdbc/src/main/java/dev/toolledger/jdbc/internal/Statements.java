package dev.toolledger.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Where a store's hot-path statements come from. Whatever {@link #prepare} returns is closed by the
 * caller after use; a caching implementation turns that close into a reset.
 */
public interface Statements {

  PreparedStatement prepare(Connection connection, String sql) throws SQLException;

  /**
   * Binds {@code bind}'s parameters to the statement for {@code sql}, runs it as a query and hands
   * back what {@code read} makes of its result set, which this method closes (closing it resets the
   * statement, so the connection holds no read snapshot after the call). Equivalent to preparing,
   * running and closing, but a caching implementation may run its kept statement itself, without
   * the wrappers that {@link #prepare} returns (the hot path of lookups and replays).
   */
  default <T> T query(Connection connection, String sql, Binder bind, Reader<T> read)
      throws SQLException {
    try (PreparedStatement statement = prepare(connection, sql)) {
      bind.bind(statement);
      try (ResultSet rows = statement.executeQuery()) {
        return read.read(rows);
      }
    }
  }

  /**
   * Binds {@code bind}'s parameters to the statement for {@code sql}, which returns no rows, runs
   * it and hands back how many rows it changed. Equivalent to preparing, {@code executeUpdate} and
   * closing, but a caching implementation may run its kept statement itself, without the wrappers
   * that {@link #prepare} returns (the ledger's own writes on the hot path).
   */
  default int update(Connection connection, String sql, Binder bind) throws SQLException {
    try (PreparedStatement statement = prepare(connection, sql)) {
      bind.bind(statement);
      return statement.executeUpdate();
    }
  }

  /**
   * Lends the statement for {@code sql} to a caller that wraps it itself (the guard around a tool's
   * connection) and gives it back instead of closing it: one wrapper per call instead of the one
   * {@link #prepare} makes plus the caller's own. Before giving it back the caller closes every
   * result set it opened from it; then it is reset for the next caller of its connection, or, when
   * its work failed, closed and never lent again.
   */
  default Lent lend(Connection connection, String sql) throws SQLException {
    PreparedStatement statement = prepare(connection, sql);
    return new Lent(statement, failed -> statement.close());
  }

  /** A statement lent by {@link #lend}, and how to give it back. */
  record Lent(PreparedStatement statement, GiveBack giveBack) {}

  /** Gives a lent statement back; {@code failed} when its work threw an SQLException. */
  @FunctionalInterface
  interface GiveBack {
    void giveBack(boolean failed) throws SQLException;
  }

  /** Binds nothing: for statements without parameters. */
  Binder NO_PARAMETERS = statement -> {};

  /** Sets the parameters of one prepared statement. */
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  /** Reads what a query returned; the result set is closed by whoever ran the query. */
  @FunctionalInterface
  interface Reader<T> {
    T read(ResultSet rows) throws SQLException;
  }

  /** Drops whatever is kept for a connection that is about to be closed for good. */
  default void forget(Connection connection) {}

  /** Drops everything; the store is closing. */
  default void clear() {}

  /** A fresh statement every time (for drivers that cache on their own, like PostgreSQL's). */
  static Statements plain() {
    return Connection::prepareStatement;
  }

  /** Prepared statements kept per physical connection (for SQLite, whose driver keeps none). */
  static Statements cached() {
    return new StatementCache();
  }
}
