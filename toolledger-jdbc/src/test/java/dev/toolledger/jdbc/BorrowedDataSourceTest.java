package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
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

  @Test
  void closingTheLedgerLeavesTheApplicationsSqlitePoolOpenAndTheFileInWalMode() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:sqlite:" + dir.resolve("application.db"));
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcLedgerStore store =
          JdbcLedgerStore.onDataSource(
              pool,
              SqliteOptions.DEFAULT_BUSY_TIMEOUT,
              PostgresOptions.DEFAULT_CLAIM_WAIT,
              List.of());
      assertThat(store.writeProblem()).isEmpty();
      assertThat(store.borrowsDataSource()).isTrue();

      store.close();

      assertThat(pool.isClosed()).isFalse();
      assertThat(query(pool, "PRAGMA journal_mode")).isEqualToIgnoringCase("wal");
      assertThat(query(pool, "SELECT COUNT(*) FROM tl_schema_version")).isNotEqualTo("0");
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
        JdbcLedgerStore store =
            JdbcLedgerStore.onDataSource(
                pool,
                SqliteOptions.DEFAULT_BUSY_TIMEOUT,
                PostgresOptions.DEFAULT_CLAIM_WAIT,
                List.of());

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
        assertThat(inLedgerTransaction).isEqualTo("5s");
        store.close();
        assertThat(pool.isClosed()).isFalse();
      }
    }
  }
}
