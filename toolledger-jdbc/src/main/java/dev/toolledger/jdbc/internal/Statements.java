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
