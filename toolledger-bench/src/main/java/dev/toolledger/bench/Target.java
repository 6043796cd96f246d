package dev.toolledger.bench;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.declarative.ToolsFile;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.PostgresOptions;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.jdbc.migration.Migration;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginRegistration;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * One ledger under test: a store, a node (engine and HTTP server) on it, a tenant's token and the
 * keys the replay scenarios retry. PostgreSQL targets run in a schema of their own, dropped at the
 * end.
 */
final class Target implements AutoCloseable {
  static final String TENANT_NAME = "bench";
  static final TenantId TENANT = TenantId.of(TENANT_NAME);
  static final int REPLAY_KEYS = 1000;
  static final int POOL_SIZE = 32;
  static final String NOTE = "{\"title\":\"benchmark note\",\"body\":\"a note of ordinary size\"}";

  final String name;
  final JdbcLedgerStore store;
  final ToolLedgerApp app;
  final String token;
  final Optional<Path> directory;
  final String runId;

  /** The PostgreSQL URL of this target's schema; empty for SQLite. */
  final Optional<String> postgresUrl;

  /** The SQLite file's JDBC URL; empty for PostgreSQL. */
  final Optional<String> sqliteUrl;

  private DbosPeer dbos;

  /** The upstream of the declarative {@value #REMOTE_TOOL} tool. */
  final NotesUpstream upstream;

  /** The declarative ({@code kind: http}) tool whose upstream is {@link #upstream}. */
  static final String REMOTE_TOOL = "create-remote-note";

  /** New keys are numbered across every configuration of the run, so none repeats. */
  final java.util.concurrent.atomic.AtomicLong keys = new java.util.concurrent.atomic.AtomicLong();

  private final Runnable cleanup;

  /**
   * The HTTP floors in front of the node ({@code http-floor-servlet}, {@code http-floor-replay},
   * {@code http-floor-core}).
   */
  final HttpFloors floors = new HttpFloors();

  private Target(
      String name,
      JdbcLedgerStore store,
      Optional<Path> directory,
      Optional<String> sqliteUrl,
      Optional<String> postgresUrl,
      Runnable cleanup) {
    this.name = name;
    this.sqliteUrl = sqliteUrl;
    this.postgresUrl = postgresUrl;
    this.store = store;
    this.directory = directory;
    this.cleanup = cleanup;
    this.runId = randomHex(4);
    this.upstream = new NotesUpstream();
    ToolLedgerApp.Builder builder = ToolLedgerApp.builder(store);
    declarativeTools(upstream).forEach(builder::tool);
    this.app =
        builder
            // The notes tables come with the store's migrations above; the tool is the harness's
            // create-note, whose effect is bare-insert's statement (see BenchNoteTool for why).
            .tool(new BenchNoteTool())
            // One tenant drives every scenario: the per-tenant rate of new operations would be
            // the thing measured.
            .engineConfig(EngineConfig.builder().nodeId("bench").unlimitedNewOperations().build())
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .relayEnabled(false)
            .recoveryInterval(Duration.ZERO)
            // No background sweeper: the scale run sweeps on purpose, in one scenario only.
            .sweepInterval(Duration.ZERO)
            .httpFront(floors)
            .start();
    this.token = app.tokens().issue(TENANT, "bench").token();
    for (int i = 0; i < REPLAY_KEYS; i++) {
      ExecutionOutcome outcome = app.engine().execute(invocation(replayKey(i)));
      if (!(outcome instanceof ExecutionOutcome.Executed)) {
        throw new IllegalStateException("could not prepare replay key " + i + ": " + outcome);
      }
    }
    floors.answer(replayAnswer(), this::replay);
  }

  /** The in-process {@code replay} scenario's call for one key; throws unless it replayed. */
  void replay(String key) {
    ExecutionOutcome outcome = app.engine().execute(invocation(key));
    if (!(outcome instanceof ExecutionOutcome.Replayed)) {
      throw new IllegalStateException("replay answered " + outcome.kind());
    }
  }

  /** A replay's answer as the node sends it over HTTP, for the floors to send canned. */
  private HttpFloors.Canned replayAnswer() {
    try (Http1Clients http = new Http1Clients(app.uri())) {
      Http1Clients.Response response =
          http.postReadingBody(
              0,
              "/v1/tools/create-note",
              Scenarios.replayHeaders(this, replayKey(0)),
              Scenarios.NOTE_BYTES);
      Scenarios.expect(response, 201, "true");
      return new HttpFloors.Canned(
          response.status(),
          response.contentType(),
          randomHex(8),
          response.body().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read a replay's answer for the floors", e);
    }
  }

  /**
   * The declarative scenarios' tool, loaded from a tools file as a user would write it: {@code
   * create-remote-note} sends the parameters to {@code POST /notes} of the upstream with the
   * operation's downstream key in {@code Idempotency-Key}, and the upstream honours it.
   */
  static List<dev.toolledger.api.Tool> declarativeTools(NotesUpstream upstream) {
    String yaml =
        String.join(
            "\n",
            "tools:",
            "  - kind: http",
            "    name: " + REMOTE_TOOL,
            "    version: \"1\"",
            "    description: Creates a note in the benchmark's upstream notes service.",
            "    parameters:",
            "      type: object",
            "      required: [title, body]",
            "      additionalProperties: false",
            "      properties:",
            "        title: {type: string}",
            "        body: {type: string}",
            "    request:",
            "      method: POST",
            "      url: " + upstream.uri().resolve(NotesUpstream.PATH),
            "      timeout: 5s",
            "    idempotent-upstream: true",
            "");
    try {
      Path file = java.nio.file.Files.createTempFile("toolledger-bench-tools", ".yaml");
      try {
        java.nio.file.Files.writeString(file, yaml);
        return ToolsFile.load(file);
      } finally {
        java.nio.file.Files.deleteIfExists(file);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot write the bench's tools file", e);
    } catch (dev.toolledger.declarative.DefinitionException e) {
      throw new IllegalStateException("the bench's tools file is wrong: " + e.getMessage(), e);
    }
  }

  static SchemaMigrations benchTables() {
    return SchemaMigrations.of(
        "bench",
        Migration.portable(
            1,
            "the two-phase alternative's claims",
            "CREATE TABLE bench_two_phase (tenant TEXT NOT NULL, op_key TEXT NOT NULL,"
                + " fingerprint TEXT NOT NULL, state TEXT NOT NULL, response_body TEXT,"
                + " created_at BIGINT NOT NULL, PRIMARY KEY (tenant, op_key))"),
        // The keyed-floor scenario's rows: tl_operations' columns and indexes as the ledger's
        // migrations leave them, so that the floor writes the same pages a record does.
        Migration.portable(
            2,
            "the keyed-floor scenario's ledger-shaped rows",
            "CREATE TABLE bench_floor (tenant TEXT NOT NULL, op_key TEXT NOT NULL, tool TEXT,"
                + " tool_version TEXT, fingerprint TEXT, state TEXT NOT NULL,"
                + " response_status INTEGER, response_body TEXT, created_at BIGINT NOT NULL,"
                + " completed_at BIGINT, expires_at BIGINT, owner TEXT, lease_until BIGINT,"
                + " fence BIGINT NOT NULL DEFAULT 1, parameters TEXT, PRIMARY KEY (tenant, op_key))",
            "CREATE INDEX bench_floor_leases ON bench_floor (lease_until)"
                + " WHERE state = 'IN_PROGRESS'",
            "CREATE INDEX bench_floor_expiry ON bench_floor (expires_at)"
                + " WHERE expires_at IS NOT NULL",
            "CREATE INDEX bench_floor_unknown ON bench_floor (created_at)"
                + " WHERE state = 'UNKNOWN'"),
        // The keyed-floor-decided scenario reads a key's tombstone as the claim does: the columns
        // and index of tl_tombstones.
        Migration.portable(
            3,
            "the keyed-floor-decided scenario's tombstones",
            "CREATE TABLE bench_floor_tombstones (tenant TEXT NOT NULL, op_key TEXT NOT NULL,"
                + " tool TEXT, fingerprint TEXT, expired_at BIGINT NOT NULL,"
                + " tombstone_until BIGINT NOT NULL, PRIMARY KEY (tenant, op_key))",
            "CREATE INDEX bench_floor_tombstones_until ON bench_floor_tombstones"
                + " (tombstone_until)"),
        // tl_operations gained the downstream key stored with each claim.
        Migration.portable(
            4,
            "the keyed-floor scenario's rows keep tl_operations' downstream key column",
            "ALTER TABLE bench_floor ADD COLUMN downstream_key TEXT"));
  }

  static Target sqlite(String name, Path file, Synchronous synchronous) {
    JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(file)
                .synchronous(synchronous)
                .poolSize(POOL_SIZE)
                .migrations(PluginRegistration.migrations(NotesTables.schema()), benchTables())
                .build());
    return new Target(
        name,
        store,
        Optional.of(file.toAbsolutePath().getParent()),
        Optional.of("jdbc:sqlite:" + file.toAbsolutePath()),
        Optional.empty(),
        () -> {});
  }

  /** A PostgreSQL target in a new schema of the given database, dropped by {@link #close()}. */
  static Target postgres(String url) {
    String schema = "toolledger_bench_" + randomHex(4);
    try (Connection admin = DriverManager.getConnection(url);
        Statement st = admin.createStatement()) {
      st.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the benchmark schema: " + e.getMessage(), e);
    }
    String scoped = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    JdbcLedgerStore store =
        JdbcLedgerStore.postgres(
            PostgresOptions.builder(scoped)
                .poolSize(POOL_SIZE)
                .migrations(PluginRegistration.migrations(NotesTables.schema()), benchTables())
                .build());
    return new Target(
        "postgresql",
        store,
        Optional.empty(),
        Optional.empty(),
        Optional.of(scoped),
        () -> {
          try (Connection admin = DriverManager.getConnection(url);
              Statement st = admin.createStatement()) {
            st.execute("DROP SCHEMA " + schema + " CASCADE");
          } catch (SQLException e) {
            System.err.println("toolledger bench: could not drop schema " + schema);
          }
        });
  }

  String replayKey(int i) {
    return "replay-" + runId + "-" + i;
  }

  static Invocation invocation(String key) {
    return Invocation.of(TENANT, OperationKey.of(key), "create-note", Json.parse(NOTE));
  }

  List<Scenario> scenarios() {
    return Scenarios.all(this);
  }

  /**
   * DBOS on this target's PostgreSQL server, launched on first use (its startup and replay
   * workflows cost seconds, so a run that does not measure it does not pay for them).
   *
   * @throws IllegalStateException on a SQLite target: DBOS Transact runs on PostgreSQL only
   */
  synchronized DbosPeer dbos() {
    if (dbos == null) {
      String url =
          postgresUrl.orElseThrow(
              () -> new IllegalStateException("DBOS Transact runs on PostgreSQL only"));
      dbos = new DbosPeer(url, store.dataSource(), POOL_SIZE);
    }
    return dbos;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (dbos != null) {
        dbos.close();
        dbos = null;
      }
    }
    app.close();
    upstream.close();
    store.close();
    cleanup.run();
  }

  static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }
}
