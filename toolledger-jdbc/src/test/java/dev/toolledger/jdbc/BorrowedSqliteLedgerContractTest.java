package dev.toolledger.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store contract on a SQLite file reached through a pool the application owns ({@link
 * JdbcLedgerStore#onDataSource}), opened as an application would: a plain URL, no ledger settings.
 */
class BorrowedSqliteLedgerContractTest extends LedgerContractTest {
  @TempDir Path dir;
  private final List<HikariDataSource> pools = new ArrayList<>();

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:sqlite:" + dir.resolve("application.db"));
    config.setMaximumPoolSize(4);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return JdbcLedgerStore.onDataSource(
        pool, SqliteOptions.DEFAULT_BUSY_TIMEOUT, PostgresOptions.DEFAULT_CLAIM_WAIT, migrations);
  }

  @AfterEach
  void closeApplicationPools() {
    if (store != null) {
      store.close();
    }
    pools.forEach(HikariDataSource::close);
  }
}
