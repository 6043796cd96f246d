package dev.toolledger.declarative.sql;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteSqlToolTest extends SqlToolContractTest {
  @TempDir Path dir;

  @Override
  JdbcLedgerStore openStore() {
    return JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
  }
}
