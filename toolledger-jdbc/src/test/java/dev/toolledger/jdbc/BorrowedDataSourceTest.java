package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a ledger on the application's pool leaves to the application: its pool and sessions. */
class BorrowedDataSourceTest {
  @TempDir Path dir;

  static String query(HikariDataSource pool, String sql) throws Exception {
    try (Connection connection = pool.getConnection();
        Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The ledger on the application's pool, with the default options. */
  private static JdbcLedgerStore ledgerOn(HikariDataSource pool) {
    return JdbcLedgerStore.onDataSource(
        pool, SqliteOptions.DEFAULT_BUSY_TIMEOUT, PostgresOptions.DEFAULT_CLAIM_WAIT, List.of());
  }

  @Test
  void closingTheLedgerLeavesTheApplicationsSqlitePoolOpenAndTheFileInWalMode() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:sqlite:" + dir.resolve("application.db"));
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcLedgerStore store = ledgerOn(pool);
      assertThat(store.writeProblem()).isEmpty();
      assertThat(store.borrowsDataSource()).isTrue();

      store.close();

      assertThat(pool.isClosed()).isFalse();
      assertThat(query(pool, "PRAGMA journal_mode")).isEqualToIgnoringCase("wal");
      assertThat(query(pool, "SELECT COUNT(*) FROM tl_schema_version")).isNotEqualTo("0");
    }
  }

  /**
   * The ledger tells the SQLite driver of its own transactions; the application's connection must
   * come back with the driver believing auto-commit again. A driver that still believed otherwise
   * would take the application's {@code setAutoCommit(false)} for a no-op, and the application's
   * next transaction would commit each statement on its own and have nothing left to roll back.
   */
  @Test
  void aLedgerTransactionOnSqliteGivesTheApplicationsConnectionBackAbleToRollBackItsOwn()
      throws Exception {
    HikariConfig config = new HikariConfig();
    String url = "jdbc:sqlite:" + dir.resolve("application.db");
    config.setJdbcUrl(url);
    // One connection: the ledger's transactions and the application's writes share it.
    config.setMaximumPoolSize(1);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      try (Connection connection = pool.getConnection();
          Statement st = connection.createStatement()) {
        st.execute("CREATE TABLE app_items (id INTEGER PRIMARY KEY, name TEXT)");
      }
      JdbcLedgerStore store = ledgerOn(pool);

      boolean autoCommitInside =
          store.inTransaction(
              tx -> {
                try {
                  return tx.connection().getAutoCommit();
                } catch (java.sql.SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      assertThat(autoCommitInside).as("the driver knows the ledger's transaction").isFalse();
      assertThat(rowsLeftByARolledBackTransaction(pool, url)).as("after a commit").isZero();

      assertThatThrownBy(
              () ->
                  store.inTransaction(
                      tx -> {
                        throw new IllegalStateException("the work failed; rolled back");
                      }))
          .hasMessageContaining("rolled back");
      assertThat(rowsLeftByARolledBackTransaction(pool, url)).as("after a rollback").isZero();
      store.close();
    }
  }

  /**
   * The application's own transaction on the pool's connection, an insert rolled back; the rows of
   * the table are then counted from another connection.
   */
  private static int rowsLeftByARolledBackTransaction(HikariDataSource pool, String url)
      throws Exception {
    try (Connection application = pool.getConnection()) {
      assertThat(application.getAutoCommit()).isTrue();
      application.setAutoCommit(false);
      try (Statement writing = application.createStatement()) {
        writing.executeUpdate("INSERT INTO app_items (name) VALUES ('rolled back')");
      }
      application.rollback();
      application.setAutoCommit(true);
    }
    try (Connection other = DriverManager.getConnection(url);
        Statement counting = other.createStatement();
        ResultSet rows = counting.executeQuery("SELECT COUNT(*) FROM app_items")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  @Test
  void aLedgerTransactionOnPostgresLeavesTheApplicationsSessionSettingsAsTheyWere()
      throws Exception {
    try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(database.url());
      // One connection: the ledger's transaction and the application's query share the session.
      config.setMaximumPoolSize(1);
      try (HikariDataSource pool = new HikariDataSource(config)) {
        String lockTimeoutBefore = query(pool, "SHOW lock_timeout");
        JdbcLedgerStore store = ledgerOn(pool);

        assertThat(store.writeProblem()).isEmpty();
        assertThat(query(pool, "SHOW lock_timeout")).isEqualTo(lockTimeoutBefore);
        String inLedgerTransaction =
            store.inTransaction(
                tx -> {
                  try (Statement st = tx.connection().createStatement();
                      ResultSet rs = st.executeQuery("SHOW lock_timeout")) {
                    rs.next();
                    return rs.getString(1);
                  } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        // The claim's wait is its lock's alone: the tool's statements keep the database's.
        assertThat(inLedgerTransaction).isEqualTo(lockTimeoutBefore);
        store.close();
        assertThat(pool.isClosed()).isFalse();
      }
    }
  }
}
