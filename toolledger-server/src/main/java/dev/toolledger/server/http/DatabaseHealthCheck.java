package dev.toolledger.server.http;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Healthy when a pooled connection to the ledger's database is valid within one second. */
public final class DatabaseHealthCheck implements HealthCheck {
  private final DataSource dataSource;

  public DatabaseHealthCheck(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public String problem() {
    try (Connection connection = dataSource.getConnection()) {
      return connection.isValid(1) ? null : "the ledger database did not answer";
    } catch (SQLException e) {
      return "the ledger database is unreachable (SQLState " + e.getSQLState() + ")";
    }
  }
}
