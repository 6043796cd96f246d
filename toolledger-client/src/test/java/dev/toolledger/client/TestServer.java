package dev.toolledger.client;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
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

/**
 * A real ToolLedger node on a real SQLite file with the notes tool, assembled through the public
 * {@link ToolLedgerApp} door, as toolledger-server's own tests do. It can be stopped and started
 * again on the same file and port, to play a server that is down for a while.
 */
final class TestServer implements AutoCloseable {
  final Path database;
  private final long quota;
  private final Duration busyTimeout;
  private int port;
  private JdbcLedgerStore store;
  private ToolLedgerApp app;

  private TestServer(Path database, long quota, Duration busyTimeout) {
    this.database = database;
    this.quota = quota;
    this.busyTimeout = busyTimeout;
  }

  static TestServer start(Path dir) {
    return start(dir, Long.MAX_VALUE, SqliteOptions.DEFAULT_BUSY_TIMEOUT);
  }

  static TestServer start(Path dir, long quota, Duration busyTimeout) {
    try {
      java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    TestServer server = new TestServer(dir.resolve("ledger.db"), quota, busyTimeout);
    server.open();
    return server;
  }

  private void open() {
    store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(database)
                .busyTimeout(busyTimeout)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build());
    app =
        ToolLedgerApp.builder(store)
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .plugin(
                NotesPlugin.serving(
                    quota == Long.MAX_VALUE ? NotesTool.unlimited() : NotesTool.withQuota(quota)))
            .engineConfig(
                EngineConfig.builder()
                    .transactionAttempts(2)
                    .transactionBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
                    .build())
            .serverConfig(ServerConfig.builder().port(port).shutdownGrace(Duration.ZERO).build())
            .start();
    port = app.uri().getPort();
  }

  String token(String tenant) {
    return app.tokens().issue(TenantId.of(tenant), "client-test").token();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Stops the server and closes its database; {@link #startAgain()} reopens both. */
  void stop() {
    app.close();
    store.close();
    app = null;
    store = null;
  }

  /** Starts again on the same file and the same port. */
  void startAgain() {
    open();
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

  /** Whether the server's ledger holds this key (in any tenant). */
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
    if (app != null) {
      app.close();
    }
    if (store != null) {
      store.close();
    }
  }
}
