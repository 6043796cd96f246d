package dev.toolledger.server;

import dev.toolledger.api.TenantId;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.plugins.PluginRegistration;
import dev.toolledger.testkit.FailAfterEffect;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A real server on port 0 over a real database (a SQLite file by default, or a PostgreSQL schema),
 * with the notes tool. The notes tool is wrapped so that a test can make it fail after its insert
 * and before the engine records the outcome: the test-only hook for "a failure between the effect
 * and the record".
 */
final class ServerFixture implements AutoCloseable {
  final Path database;
  final AtomicBoolean failAfterEffect = new AtomicBoolean();
  private final long quota;
  private final Supplier<JdbcLedgerStore> opener;
  JdbcLedgerStore store;
  ToolLedgerApp app;
  Tokens tokens;

  private ServerFixture(Path database, long quota, Supplier<JdbcLedgerStore> opener) {
    this.database = database;
    this.quota = quota;
    this.opener = opener;
  }

  static ServerFixture start(Path dir) {
    return start(dir, Long.MAX_VALUE, SqliteOptions.DEFAULT_BUSY_TIMEOUT);
  }

  static ServerFixture start(Path dir, long quota, Duration busyTimeout) {
    Path file = dir.resolve("ledger.db");
    ServerFixture fixture =
        new ServerFixture(
            file,
            quota,
            () ->
                JdbcLedgerStore.sqlite(
                    SqliteOptions.builder(file)
                        .busyTimeout(busyTimeout)
                        .migrations(PluginRegistration.migrations(NotesTables.schema()))
                        .build()));
    fixture.open();
    return fixture;
  }

  /** A server over a PostgreSQL test schema; a restart reopens the same schema. */
  static ServerFixture postgres(PostgresTestDatabase database) {
    ServerFixture fixture =
        new ServerFixture(
            null,
            Long.MAX_VALUE,
            () ->
                JdbcLedgerStore.postgres(
                    database
                        .options()
                        .migrations(PluginRegistration.migrations(NotesTables.schema()))
                        .build()));
    fixture.open();
    return fixture;
  }

  private void open() {
    store = opener.get();
    app =
        ToolLedgerApp.builder(store)
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .plugin(
                NotesPlugin.serving(
                    quota == Long.MAX_VALUE ? NotesTool.unlimited() : NotesTool.withQuota(quota)))
            .toolDecorator(
                tool -> new FailAfterEffect((TransactionalTool) tool, failAfterEffect::get))
            .engineConfig(
                EngineConfig.builder()
                    .transactionAttempts(2)
                    .transactionBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
                    .build())
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .start();
    tokens = app.tokens();
  }

  String token(String tenant) {
    return tokens.issue(TenantId.of(tenant), "test").token();
  }

  URI uri() {
    return app.uri();
  }

  /** Stops the server and closes the database, then opens both again on the same file. */
  void restart() {
    app.close();
    store.close();
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
