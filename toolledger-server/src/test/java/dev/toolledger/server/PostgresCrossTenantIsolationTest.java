package dev.toolledger.server;

import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.plugins.PluginRegistration;
import java.util.ArrayList;
import java.util.List;

/** Cross-tenant isolation on PostgreSQL, each world in a schema of its own. */
class PostgresCrossTenantIsolationTest extends CrossTenantIsolationTest {
  private final List<PostgresTestDatabase> schemas = new ArrayList<>();

  @Override
  protected JdbcLedgerStore openStore() {
    PostgresTestDatabase schema = PostgresTestDatabase.create();
    schemas.add(schema);
    return JdbcLedgerStore.postgres(
        schema.options().migrations(PluginRegistration.migrations(NotesTables.schema())).build());
  }

  @Override
  protected void dropDatabases() {
    schemas.forEach(PostgresTestDatabase::close);
  }
}
