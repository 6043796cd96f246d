package dev.toolledger.jdbc;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.junit.jupiter.api.AfterEach;

class PostgresFaultAtEveryCallTest extends FaultAtEveryCallTest {
  private PostgresTestDatabase database;

  @Override
  JdbcLedgerStore open(FaultyDataSource faults) {
    database = PostgresTestDatabase.create();
    return JdbcLedgerStore.postgres(
        database.options().migrations(ItemsTool.MIGRATIONS).build(), faults.decorator());
  }

  @AfterEach
  void drop() {
    database.close();
  }
}
