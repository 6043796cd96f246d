package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh PostgreSQL schema per test, created on first use and dropped after the test's own
 * {@code @AfterEach} methods have closed its stores.
 */
final class PostgresSchema implements AfterEachCallback {
  private PostgresTestDatabase database;

  JdbcLedgerStore open(List<SchemaMigrations> migrations) {
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    return JdbcLedgerStore.postgres(database.options().migrations(migrations).build());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (database != null) {
      database.close();
      database = null;
    }
  }
}
