package dev.toolledger.declarative.sql;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.junit.jupiter.api.AfterEach;

class PostgresSqlToolTest extends SqlToolContractTest {
  private PostgresTestDatabase database;

  @Override
  JdbcLedgerStore openStore() {
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    return JdbcLedgerStore.postgres(database.options().build());
  }

  @AfterEach
  void dropSchema() {
    // JUnit runs this before the base class's stop(); the schema can only be dropped once the
    // server and the store are closed (stopping again there is harmless).
    stop();
    if (database != null) {
      database.close();
    }
  }
}
