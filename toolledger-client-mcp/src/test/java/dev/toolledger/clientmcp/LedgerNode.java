package dev.toolledger.clientmcp;

import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginRegistration;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * A real ToolLedger node on port 0 over a real SQLite file, serving the HTTP API and {@code /mcp},
 * assembled through the public {@link ToolLedgerApp} door as toolledger-server's own tests do.
 */
final class LedgerNode implements AutoCloseable {
  final Path database;
  final JdbcLedgerStore store;
  final ToolLedgerApp app;

  private LedgerNode(Path database, UnaryOperator<ToolLedgerApp.Builder> customizer) {
    this.database = database;
    this.store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(database)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build());
    this.app =
        customizer
            .apply(
                ToolLedgerApp.builder(store)
                    .plugin(NotesPlugin.serving(NotesTool.unlimited()))
                    .relayEnabled(false)
                    .serverConfig(
                        ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build()))
            .start();
  }

  static LedgerNode start(Path dir) {
    return start(dir, UnaryOperator.identity());
  }

  static LedgerNode start(Path dir, UnaryOperator<ToolLedgerApp.Builder> customizer) {
    return new LedgerNode(dir.resolve("ledger.db"), customizer);
  }

  /**
   * Requests of at most {@link #MAX_REQUEST_BYTES}. A test that sends a too large request sends one
   * a little over it: the server answers 413 without reading the body, and a body of tens of
   * kilobytes may still be on its way when the server closes the connection, so the client sees a
   * reset instead of the 413 now and then (about 2% of attempts at 70 kB over 64 KiB, over HTTP and
   * over MCP alike).
   */
  static ToolLedgerApp.Builder smallRequests(ToolLedgerApp.Builder app) {
    return app.serverConfig(
        ServerConfig.builder()
            .port(0)
            .shutdownGrace(Duration.ZERO)
            .maxRequestBytes(MAX_REQUEST_BYTES)
            .build());
  }

  static final int MAX_REQUEST_BYTES = 1024;

  String token(String tenant) {
    return app.tokens().issue(TenantId.of(tenant), "client-mcp-test").token();
  }

  /** The HTTP API's base URI. */
  URI uri() {
    return app.uri();
  }

  /** The MCP endpoint, {@code http://127.0.0.1:PORT/mcp}. */
  URI mcpUri() {
    return app.mcpUri().orElseThrow();
  }

  long count(String sql) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  long notes() throws Exception {
    return count("SELECT COUNT(*) FROM notes");
  }

  long operations() throws Exception {
    return count("SELECT COUNT(*) FROM tl_operations");
  }

  /** Whether the ledger holds this key (in any tenant). */
  boolean holdsKey(String key) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM tl_operations WHERE op_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) == 1;
      }
    }
  }

  @Override
  public void close() {
    app.close();
    store.close();
  }
}
