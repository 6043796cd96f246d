package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Retention, sweeping and tombstones on a real PostgreSQL server, in a schema of its own. */
class PostgresRetentionContractTest extends RetentionContractTest {
  @RegisterExtension final PostgresSchema database = new PostgresSchema();

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    return database.open(migrations);
  }
}
