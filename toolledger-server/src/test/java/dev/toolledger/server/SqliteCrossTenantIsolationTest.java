package dev.toolledger.server;

import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.plugins.PluginRegistration;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;

/** Cross-tenant isolation on SQLite files. */
class SqliteCrossTenantIsolationTest extends CrossTenantIsolationTest {
  @TempDir Path dir;
  private final AtomicInteger worlds = new AtomicInteger();

  @Override
  protected JdbcLedgerStore openStore() {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(dir.resolve("world-" + worlds.incrementAndGet() + ".db"))
            .migrations(PluginRegistration.migrations(NotesTables.schema()))
            .build());
  }
}
