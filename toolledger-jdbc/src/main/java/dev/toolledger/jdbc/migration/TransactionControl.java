package dev.toolledger.jdbc.migration;

import java.sql.Connection;
import java.sql.SQLException;

/** How a store begins, commits and rolls back a write transaction on one of its connections. */
public interface TransactionControl {
  void begin(Connection connection) throws SQLException;

  void commit(Connection connection) throws SQLException;

  /** Rolls back; returns false when the connection's state is unknown and it must not be reused. */
  boolean rollback(Connection connection);
}
