package dev.toolledger.server.mcp;

import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginRegistration;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
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
 * A real ToolLedger node on port 0 over a real SQLite file, and real MCP Java SDK clients talking
 * Streamable HTTP to it. Clients are closed before the node.
 */
final class McpFixture implements AutoCloseable {
  final Path database;
  final JdbcLedgerStore store;
  final ToolLedgerApp app;
  private final List<McpSyncClient> clients = new ArrayList<>();

  private McpFixture(Path database, UnaryOperator<ToolLedgerApp.Builder> customizer) {
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
                    .serverConfig(
                        ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build()))
            .start();
  }

  static McpFixture start(Path dir) {
    return start(dir, UnaryOperator.identity());
  }

  static McpFixture start(Path dir, UnaryOperator<ToolLedgerApp.Builder> customizer) {
    return new McpFixture(dir.resolve("ledger.db"), customizer);
  }

  String token(String tenant) {
    return app.tokens().issue(TenantId.of(tenant), "test").token();
  }

  URI uri() {
    return app.uri();
  }

  URI mcpUri() {
    return app.mcpUri().orElseThrow();
  }

  /** An initialized client that sends the bearer token on every request. */
  McpSyncClient client(String token) {
    return client(token, null);
  }

  /**
   * An initialized client that sends the bearer token, and {@code idempotencyKey} (when not null)
   * as the {@code Idempotency-Key} header, on every request.
   */
  McpSyncClient client(String token, String idempotencyKey) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(uri().toString())
            .endpoint(McpConventions.PATH)
            .addHttpRequestCustomizer(
                (request, method, endpoint, body, context) -> {
                  if (token != null) {
                    request.header("Authorization", "Bearer " + token);
                  }
                  if (idempotencyKey != null) {
                    request.header(McpConventions.IDEMPOTENCY_KEY_HEADER, idempotencyKey);
                  }
                })
            .build();
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(30))
            .build();
    clients.add(client);
    client.initialize();
    return client;
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

  @Override
  public void close() {
    for (McpSyncClient client : clients) {
      try {
        client.closeGracefully();
      } catch (RuntimeException ignored) {
        // A client whose server already went away.
      }
    }
    app.close();
    store.close();
  }
}
