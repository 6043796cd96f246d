package dev.toolledger.server.plugins;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteReadViewLimitsTest extends ReadViewLimitsContractTest {
  @TempDir Path dir;

  @Override
  JdbcLedgerStore openStore() {
    return JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
  }

  @Override
  String slowQuery() {
    // Bounded, so that without a timeout the test fails after a while instead of hanging.
    return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000000)"
        + " SELECT count(*) FROM c";
  }
}
