package dev.toolledger.guard;

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
import java.time.Duration;

/** A real ToolLedger node on port 0 over a real SQLite file, serving {@code /mcp}. */
final class NotesNode implements AutoCloseable {
  private final JdbcLedgerStore store;
  private final ToolLedgerApp app;

  private NotesNode(Path database) {
    this.store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(database)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build());
    this.app =
        ToolLedgerApp.builder(store)
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .relayEnabled(false)
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .start();
  }

  static NotesNode start(Path dir) {
    return new NotesNode(dir.resolve("ledger.db"));
  }

  String token(String tenant) {
    return app.tokens().issue(TenantId.of(tenant), "guard-test").token();
  }

  /** The HTTP base URI; the MCP endpoint is {@code /mcp} under it. */
  URI uri() {
    return app.uri();
  }

  long notes() throws Exception {
    return count("SELECT COUNT(*) FROM notes", null);
  }

  long notesTitled(String title) throws Exception {
    return count("SELECT COUNT(*) FROM notes WHERE title = ?", title);
  }

  long operations() throws Exception {
    return count("SELECT COUNT(*) FROM tl_operations", null);
  }

  boolean holdsKey(String key) throws Exception {
    return count("SELECT COUNT(*) FROM tl_operations WHERE op_key = ?", key) == 1;
  }

  private long count(String sql, String argument) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      if (argument != null) {
        ps.setString(1, argument);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public void close() {
    app.close();
    store.close();
  }
}
