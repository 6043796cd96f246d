package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operators' catalog on a real PostgreSQL server, in a schema of this test's own. */
class PostgresOperationCatalogContractTest extends OperationCatalogContractTest {
  @RegisterExtension final PostgresSchema database = new PostgresSchema();

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    return database.open(migrations);
  }
}
