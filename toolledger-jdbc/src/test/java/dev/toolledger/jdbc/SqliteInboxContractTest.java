package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** The recipient's inbox on a real SQLite file. */
class SqliteInboxContractTest extends InboxContractTest {
  @TempDir Path dir;

  @Override
  protected JdbcLedgerStore openStore(List<SchemaMigrations> migrations) {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(dir.resolve("recipient.db")).migrations(migrations).build());
  }
}
