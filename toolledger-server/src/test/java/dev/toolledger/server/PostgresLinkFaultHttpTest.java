package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.PostgresOptions;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.plugins.PluginRegistration;
import dev.toolledger.testkit.pg.PgFaultProxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose link to PostgreSQL stalls, over HTTP on a real socket: the caller hears {@code 503
 * ledger-busy} with {@code Retry-After} within the link's bound instead of hanging as long as the
 * link does, and a tool whose statement the database cuts short is the ledger's busy, not {@code
 * 500 tool-failed}. Once healed, the retry executes once and replays byte-identically. Bounds
 * shrunk for a quick test: claim wait 1 s, statement timeout 2 s, socket timeout 3 s.
 */
class PostgresLinkFaultHttpTest {
  private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(3);
  private static final String BUSY = "https://toolledger.dev/problems/ledger-busy";

  private PostgresTestDatabase database;
  private PgFaultProxy proxy;
  private JdbcLedgerStore store;
  private ToolLedgerApp app;
  private String token;

  @BeforeEach
  void start() {
    database = PostgresTestDatabase.create();
    proxy = PgFaultProxy.inFrontOf(database.url());
    store =
        JdbcLedgerStore.postgres(
            PostgresOptions.builder(proxy.route(database.url()))
                .poolSize(4)
                .connectionTimeout(Duration.ofSeconds(1))
                .claimWait(Duration.ofSeconds(1))
                .statementTimeout(Duration.ofSeconds(2))
                .socketTimeout(SOCKET_TIMEOUT)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build());
    app =
        ToolLedgerApp.builder(store)
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .engineConfig(EngineConfig.builder().maxWait(Duration.ofSeconds(1)).build())
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .start();
    token = app.tokens().issue(TenantId.of("acme"), "test").token();
  }

  @AfterEach
  void stop() {
    proxy.heal();
    app.close();
    store.close();
    proxy.close();
    database.close();
  }

  private Reply createNote(String key) {
    return Http.post(app.uri(), "/v1/tools/create-note", token, key, "{\"title\":\"t\"}");
  }

  private long notes() throws Exception {
    try (Connection c = database.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM notes")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aStalledLinkIsAnsweredLedgerBusyWithinTheSocketTimeoutAndTheRetryConverges()
      throws Exception {
    assertThat(createNote("warm-up").status()).isEqualTo(201);
    proxy.stall();

    long started = System.nanoTime();
    Reply stalled = createNote("op-1");
    Duration waited = Duration.ofNanos(System.nanoTime() - started);

    assertThat(stalled.status()).isEqualTo(503);
    assertThat(stalled.problemType()).isEqualTo(BUSY);
    assertThat(stalled.header("Retry-After")).isNotNull();
    assertThat(waited).isLessThan(SOCKET_TIMEOUT.plusSeconds(2));
    proxy.heal();
    Reply created = createNote("op-1");
    assertThat(created.status()).isEqualTo(201);
    Reply replay = createNote("op-1");
    assertThat(replay.body()).isEqualTo(created.body());
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(notes()).isEqualTo(2);
  }

  @Test
  void aToolStatementThatTheDatabaseCutsShortIsLedgerBusyNotToolFailed() throws Exception {
    try (Connection holder = database.connect()) {
      // Another client holds the tool's table and stays silent, as one whose link stalled would.
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("LOCK TABLE notes IN EXCLUSIVE MODE");
      }
      Reply cut = createNote("op-1");

      assertThat(cut.status()).isEqualTo(503);
      assertThat(cut.problemType()).isEqualTo(BUSY);
      assertThat(cut.header("Retry-After")).isNotNull();
      holder.rollback();
    }
    assertThat(notes()).isZero();
    Reply created = createNote("op-1");
    assertThat(created.status()).isEqualTo(201);
    assertThat(createNote("op-1").body()).isEqualTo(created.body());
    assertThat(notes()).isEqualTo(1);
  }
}
