package dev.toolledger.jdbc.migration;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.core.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies pending migrations at start.
 *
 * <p>Each migration runs in its own transaction that first inserts its row into {@code
 * tl_schema_version}. When several nodes start at once, the primary key on (component, version)
 * decides which one applies it: the others wait for that transaction, fail the insert, and move on.
 * A database whose schema is newer than this code knows is refused rather than used.
 */
public final class Migrator {
  private static final Logger LOG = LoggerFactory.getLogger(Migrator.class);
  private static final Set<String> CONCURRENT_CREATE_STATES = Set.of("23505", "42P07", "42710");

  private final SqlDialect dialect;
  private final TransactionControl transactions;
  private final Clock clock;

  public Migrator(SqlDialect dialect, TransactionControl transactions, Clock clock) {
    this.dialect = dialect;
    this.transactions = transactions;
    this.clock = clock;
  }

  /** Applies every pending migration of every component, in order. */
  public void migrate(Connection connection, List<SchemaMigrations> components) {
    try {
      ensureVersionTable(connection);
      for (SchemaMigrations component : components) {
        migrate(connection, component);
      }
    } catch (SQLException e) {
      throw new StoreException(
          "schema migration failed (SQLState " + e.getSQLState() + "): " + e.getMessage(), e);
    }
  }

  private void ensureVersionTable(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS tl_schema_version ("
              + " component TEXT NOT NULL,"
              + " version INTEGER NOT NULL,"
              + " description TEXT NOT NULL,"
              + " applied_at BIGINT NOT NULL,"
              + " PRIMARY KEY (component, version))");
    } catch (SQLException e) {
      // Two nodes creating the table at the same moment on PostgreSQL: IF NOT EXISTS looked
      // before the other's commit, so the loser fails on the catalog -- with a unique violation
      // (23505), duplicate_table (42P07) or, for the table's row type, duplicate_object (42710).
      // The table exists either way.
      if (!CONCURRENT_CREATE_STATES.contains(e.getSQLState())) {
        throw e;
      }
    }
  }

  private void migrate(Connection connection, SchemaMigrations component) throws SQLException {
    int current = currentVersion(connection, component.component());
    if (current > component.latestVersion()) {
      throw new StoreException(
          "the database's "
              + component.component()
              + " schema is at version "
              + current
              + " but this ToolLedger knows versions up to "
              + component.latestVersion()
              + "; run a newer ToolLedger against this database");
    }
    for (Migration migration : component.migrations()) {
      if (migration.version() <= current) {
        continue;
      }
      apply(connection, component.component(), migration);
    }
  }

  private int currentVersion(Connection connection, String component) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT COALESCE(MAX(version), 0) FROM tl_schema_version WHERE component = ?")) {
      ps.setString(1, component);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private void apply(Connection connection, String component, Migration migration)
      throws SQLException {
    if (dialect != SqlDialect.POSTGRESQL) {
      applyUnbounded(connection, component, migration);
      return;
    }
    int networkTimeout = connection.getNetworkTimeout();
    try {
      applyUnbounded(connection, component, migration);
    } finally {
      if (connection.getNetworkTimeout() != networkTimeout && !connection.isClosed()) {
        connection.setNetworkTimeout(Runnable::run, networkTimeout);
      }
    }
  }

  private void applyUnbounded(Connection connection, String component, Migration migration)
      throws SQLException {
    transactions.begin(connection);
    try {
      if (dialect == SqlDialect.POSTGRESQL) {
        // Another node may be applying this very migration, and a tool's migration may build an
        // index on a large table: wait however long it takes rather than fail the start on the
        // bounds that the pool puts on requests (statement, idle transaction and socket timeouts).
        // The network timeout is the connection's own; it is set back below.
        connection.setNetworkTimeout(Runnable::run, 0);
        try (Statement st = connection.createStatement()) {
          st.execute(
              "SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0;"
                  + " SET LOCAL idle_in_transaction_session_timeout = 0");
        }
      }
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO tl_schema_version (component, version, description, applied_at)"
                  + " VALUES (?, ?, ?, ?)")) {
        ps.setString(1, component);
        ps.setInt(2, migration.version());
        ps.setString(3, migration.description());
        ps.setLong(4, clock.millis());
        ps.executeUpdate();
      } catch (SQLException e) {
        transactions.rollback(connection);
        if ("23505".equals(e.getSQLState()) || isSqliteUniqueViolation(e)) {
          LOG.info(
              "{} schema migration {} was applied by another node", component, migration.version());
          return;
        }
        throw e;
      }
      try (Statement st = connection.createStatement()) {
        for (String sql : migration.statementsFor(dialect)) {
          st.execute(sql);
        }
      }
      transactions.commit(connection);
      LOG.info(
          "applied {} schema migration {}: {}",
          component,
          migration.version(),
          migration.description());
    } catch (SQLException | RuntimeException e) {
      transactions.rollback(connection);
      throw e;
    }
  }

  private static boolean isSqliteUniqueViolation(SQLException e) {
    // SQLITE_CONSTRAINT_PRIMARYKEY (1555) or SQLITE_CONSTRAINT_UNIQUE (2067), or the primary
    // SQLITE_CONSTRAINT (19) when extended codes are off.
    int code = e.getErrorCode();
    return code == 1555 || code == 2067 || code == 19;
  }
}
