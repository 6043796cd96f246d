package dev.toolledger.examples.orders;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;

class OrdersOnSqliteTest extends OrdersSeedScenarioTest {
  @TempDir Path dir;

  @Override
  Supplier<JdbcLedgerStore> database() {
    Path file = dir.resolve("ledger.db");
    return () -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build());
  }
}
