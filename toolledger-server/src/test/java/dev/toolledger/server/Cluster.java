package dev.toolledger.server;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.PostgresOptions;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.plugins.PluginRegistration;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Real server nodes sharing one ledger database: several nodes on one PostgreSQL schema (each with
 * its own pool, as separate processes would have), or one node on a SQLite file.
 */
final class Cluster implements AutoCloseable {
  private final List<JdbcLedgerStore> stores = new ArrayList<>();
  private final List<ToolLedgerApp> apps = new ArrayList<>();

  private Cluster() {}

  static Cluster postgres(
      PostgresTestDatabase database, int nodes, UnaryOperator<ToolLedgerApp.Builder> customize) {
    return postgres(
        database.url() + "&ApplicationName=" + applicationName(database), nodes, customize);
  }

  /** Nodes on the database of a PgJDBC URL, e.g. a multi-host one. */
  static Cluster postgres(String url, int nodes, UnaryOperator<ToolLedgerApp.Builder> customize) {
    Cluster cluster = new Cluster();
    for (int i = 0; i < nodes; i++) {
      JdbcLedgerStore store =
          JdbcLedgerStore.postgres(
              PostgresOptions.builder(url)
                  .poolSize(10)
                  .migrations(PluginRegistration.migrations(NotesTables.schema()))
                  .build());
      cluster.add(store, "node-" + (i + 1), customize);
    }
    return cluster;
  }

  /** The name the cluster's connections show in pg_stat_activity: the test's schema. */
  static String applicationName(PostgresTestDatabase database) {
    return database.schema();
  }

  static Cluster sqlite(Path file, UnaryOperator<ToolLedgerApp.Builder> customize) {
    Cluster cluster = new Cluster();
    JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(file)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build());
    cluster.add(store, "node-1", customize);
    return cluster;
  }

  private void add(
      JdbcLedgerStore store, String nodeId, UnaryOperator<ToolLedgerApp.Builder> customize) {
    stores.add(store);
    ToolLedgerApp.Builder builder =
        ToolLedgerApp.builder(store)
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .engineConfig(EngineConfig.builder().nodeId(nodeId).build())
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build());
    try {
      apps.add(customize.apply(builder).start());
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  int size() {
    return apps.size();
  }

  URI node(int index) {
    return apps.get(index % apps.size()).uri();
  }

  ToolLedgerApp app(int index) {
    return apps.get(index);
  }

  String token(String tenant) {
    return apps.get(0).tokens().issue(TenantId.of(tenant), "test").token();
  }

  JdbcLedgerStore store() {
    return stores.get(0);
  }

  long count(String sql) throws Exception {
    try (Connection c = stores.get(0).dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() {
    apps.forEach(ToolLedgerApp::close);
    stores.forEach(JdbcLedgerStore::close);
  }
}
