package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The store contract on a real PostgreSQL server, in a schema of this test's own. */
class PostgresLedgerContractTest extends LedgerContractTest {
  private PostgresTestDatabase database;

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    // Created on first use: the superclass opens the store before a subclass's @BeforeEach runs.
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    return JdbcLedgerStore.postgres(database.options().migrations(migrations).build());
  }

  @AfterEach
  void dropSchema() {
    if (store != null) {
      store.close();
    }
    if (database != null) {
      database.close();
    }
  }
}
