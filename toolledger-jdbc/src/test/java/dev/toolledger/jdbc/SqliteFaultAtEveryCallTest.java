package dev.toolledger.jdbc;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteFaultAtEveryCallTest extends FaultAtEveryCallTest {
  @TempDir Path dir;

  @Override
  JdbcLedgerStore open(FaultyDataSource faults) {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(dir.resolve("ledger.db")).migrations(ItemsTool.MIGRATIONS).build(),
        faults.decorator());
  }
}
