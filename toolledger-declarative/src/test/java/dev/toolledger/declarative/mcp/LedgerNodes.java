package dev.toolledger.declarative.mcp;

import dev.toolledger.api.TenantId;
import dev.toolledger.api.Tool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.PostgresOptions;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Real ToolLedger nodes on one ledger (a SQLite file, or a PostgreSQL schema), each with its own
 * store as separate processes would have. Recovery runs only when a test calls it, so that a test
 * decides when a takeover happens.
 */
final class LedgerNodes implements AutoCloseable {
  private final List<JdbcLedgerStore> stores = new ArrayList<>();
  private final List<ToolLedgerApp> apps = new ArrayList<>();
  private final Supplier<JdbcLedgerStore> storeFactory;

  private LedgerNodes(Supplier<JdbcLedgerStore> storeFactory) {
    this.storeFactory = storeFactory;
  }

  static LedgerNodes sqlite(Path file) {
    return new LedgerNodes(() -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build()));
  }

  static LedgerNodes postgres(PostgresTestDatabase database) {
    return new LedgerNodes(
        () ->
            JdbcLedgerStore.postgres(PostgresOptions.builder(database.url()).poolSize(4).build()));
  }

  /** Starts one more node serving {@code tool}; returns its index. */
  int start(Tool tool) {
    JdbcLedgerStore store = storeFactory.get();
    stores.add(store);
    apps.add(
        ToolLedgerApp.builder(store)
            .engineConfig(EngineConfig.builder().nodeId("node-" + (apps.size() + 1)).build())
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .recoveryInterval(Duration.ZERO)
            .sweepInterval(Duration.ZERO)
            .relayEnabled(false)
            .tool(tool)
            .start());
    return apps.size() - 1;
  }

  /** Stops node {@code index} (its store too), as a process that ends would. */
  void stop(int index) {
    apps.get(index).close();
    stores.get(index).close();
  }

  URI node(int index) {
    return apps.get(index).uri();
  }

  ToolLedgerApp app(int index) {
    return apps.get(index);
  }

  String token(String tenant) {
    return apps.get(apps.size() - 1).tokens().issue(TenantId.of(tenant), "test").token();
  }

  /** Waits until some claim's lease ran out by the database's clock. */
  void awaitExpiredLease() throws InterruptedException {
    JdbcLedgerStore store = stores.get(stores.size() - 1);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (store.expiredClaims(10).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no lease expired within 20 s");
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    for (int i = 0; i < apps.size(); i++) {
      try {
        apps.get(i).close();
        stores.get(i).close();
      } catch (RuntimeException e) {
        // already stopped
      }
    }
  }
}
