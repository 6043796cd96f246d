package dev.toolledger.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Where a store's hot-path statements come from. Whatever {@link #prepare} returns is closed by the
 * caller after use; a caching implementation turns that close into a reset.
 */
public interface Statements {

  PreparedStatement prepare(Connection connection, String sql) throws SQLException;

  /**
   * Runs {@code work} on the statement for {@code sql} and hands back what it returns; the work
   * closes any result set it opens. Equivalent to preparing, running and closing, but a caching
   * implementation may give the work its kept statement itself, without the wrappers that {@link
   * #prepare} returns (the hot path of lookups and replays).
   */
  default <T> T query(Connection connection, String sql, Query<T> work) throws SQLException {
    try (PreparedStatement statement = prepare(connection, sql)) {
      return work.run(statement);
    }
  }

  /** Work on one prepared statement. */
  @FunctionalInterface
  interface Query<T> {
    T run(PreparedStatement statement) throws SQLException;
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
