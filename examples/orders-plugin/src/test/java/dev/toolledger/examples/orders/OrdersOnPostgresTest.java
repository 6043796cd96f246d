package dev.toolledger.examples.orders;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;

class OrdersOnPostgresTest extends OrdersSeedScenarioTest {
  PostgresTestDatabase database;

  @Override
  Supplier<JdbcLedgerStore> database() {
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    return () -> JdbcLedgerStore.postgres(database.options().poolSize(4).build());
  }

  @AfterEach
  void drop() {
    if (node != null) {
      node.close();
      node = null;
    }
    if (database != null) {
      database.close();
    }
  }
}
