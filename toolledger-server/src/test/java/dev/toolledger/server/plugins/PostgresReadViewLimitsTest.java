package dev.toolledger.server.plugins;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.PostgresOptions;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.junit.jupiter.api.AfterEach;

class PostgresReadViewLimitsTest extends ReadViewLimitsContractTest {
  private PostgresTestDatabase database;

  @Override
  JdbcLedgerStore openStore() {
    database = PostgresTestDatabase.create();
    return JdbcLedgerStore.postgres(PostgresOptions.builder(database.url()).poolSize(2).build());
  }

  @Override
  String slowQuery() {
    return "SELECT pg_sleep(30)";
  }

  @AfterEach
  void dropSchema() {
    close();
    if (database != null) {
      database.close();
    }
  }
}
