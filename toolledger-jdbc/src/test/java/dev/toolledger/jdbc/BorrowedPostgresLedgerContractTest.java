package dev.toolledger.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The store contract on PostgreSQL reached through a pool the application owns ({@link
 * JdbcLedgerStore#onDataSource}), opened as an application would: a plain URL, the server's
 * defaults, no lock_timeout; the store sets what it needs per transaction.
 */
class BorrowedPostgresLedgerContractTest extends LedgerContractTest {
  private PostgresTestDatabase database;
  private final List<HikariDataSource> pools = new ArrayList<>();

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    // Created on first use: the superclass opens the store before a subclass's @BeforeEach runs.
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.url());
    config.setMaximumPoolSize(6);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return JdbcLedgerStore.onDataSource(
        pool, SqliteOptions.DEFAULT_BUSY_TIMEOUT, PostgresOptions.DEFAULT_CLAIM_WAIT, migrations);
  }

  @AfterEach
  void dropSchema() {
    if (store != null) {
      store.close();
    }
    pools.forEach(HikariDataSource::close);
    if (database != null) {
      database.close();
    }
  }
}
