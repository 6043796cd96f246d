package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stored-response size and new-operation rate limits on a real PostgreSQL server, in a schema of
 * its own.
 */
class PostgresLimitsContractTest extends LimitsContractTest {
  @RegisterExtension final PostgresSchema database = new PostgresSchema();

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    return database.open(migrations);
  }
}
