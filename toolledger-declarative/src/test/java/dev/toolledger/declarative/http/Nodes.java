package dev.toolledger.declarative.http;

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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Real ToolLedger nodes serving given tools: one on a SQLite file, or several sharing a PostgreSQL
 * schema (each with its own pool, as separate processes would). Recovery runs only when a test
 * calls it, so that a test decides when a takeover happens.
 */
final class Nodes implements AutoCloseable {
  private final List<JdbcLedgerStore> stores = new ArrayList<>();
  private final List<ToolLedgerApp> apps = new ArrayList<>();

  static Nodes sqlite(Path file, Tool tool) {
    Nodes nodes = new Nodes();
    nodes.add(JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build()), "node-1", tool);
    return nodes;
  }

  static Nodes postgres(PostgresTestDatabase database, Tool... toolPerNode) {
    Nodes nodes = new Nodes();
    for (int i = 0; i < toolPerNode.length; i++) {
      nodes.add(
          JdbcLedgerStore.postgres(PostgresOptions.builder(database.url()).poolSize(6).build()),
          "node-" + (i + 1),
          toolPerNode[i]);
    }
    return nodes;
  }

  private void add(JdbcLedgerStore store, String nodeId, Tool tool) {
    stores.add(store);
    apps.add(
        ToolLedgerApp.builder(store)
            .engineConfig(EngineConfig.builder().nodeId(nodeId).build())
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .recoveryInterval(Duration.ZERO)
            .sweepInterval(Duration.ZERO)
            .relayEnabled(false)
            .tool(tool)
            .start());
  }

  URI node(int index) {
    return apps.get(index).uri();
  }

  ToolLedgerApp app(int index) {
    return apps.get(index);
  }

  String token(String tenant) {
    return apps.get(0).tokens().issue(TenantId.of(tenant), "test").token();
  }

  JdbcLedgerStore store(int index) {
    return stores.get(index);
  }

  long count(String sql) throws Exception {
    try (Connection c = stores.get(0).dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Waits until some claim's lease ran out by the database's clock. */
  void awaitExpiredLease() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (stores.get(0).expiredClaims(10).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no lease expired within 20 s");
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    apps.forEach(ToolLedgerApp::close);
    stores.forEach(JdbcLedgerStore::close);
  }
}
