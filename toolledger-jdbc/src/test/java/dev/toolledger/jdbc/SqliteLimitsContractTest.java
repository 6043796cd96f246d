package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** Stored-response size and new-operation rate limits on a real SQLite file. */
class SqliteLimitsContractTest extends LimitsContractTest {
  @TempDir Path dir;

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(dir.resolve("ledger.db")).migrations(migrations).build());
  }
}
