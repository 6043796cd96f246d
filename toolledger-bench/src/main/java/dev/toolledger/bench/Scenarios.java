package dev.toolledger.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.clientmcp.LeanStreamableHttpTransport;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.mcp.McpConventions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The scenarios of a target; see the README's benchmark section for what each measures. */
final class Scenarios {
  private Scenarios() {}

  /**
   * Every scenario's name, in the order they run (and the report and chart show them): the peer's
   * beside the ledger's {@code keyed-create} and {@code replay}.
   */
  static final List<String> NAMES =
      List.of(
          "bare-insert",
          "keyed-create",
          "peer-dbos-create",
          "keyed-create-limited",
          "replay",
          "peer-dbos-replay",
          "two-phase",
          "keyed-floor",
          "keyed-floor-decided",
          "http-keyed-create",
          "http-replay",
          "http-floor-servlet",
          "http-floor-replay",
          "http-floor-core",
          "mcp-keyed-create",
          "mcp-lean-keyed-create",
          "guard-keyed-create",
          "guard-keyed-create-shm",
          "mcp-raw-keyed-create",
          "decl-http-create",
          "decl-floor",
          "decl-upstream-direct");

  /** The scenarios that run on PostgreSQL only (DBOS Transact supports no other database). */
  static final List<String> POSTGRES_ONLY = List.of("peer-dbos-create", "peer-dbos-replay");

  /** The target's scenarios in {@link #NAMES}' order; the peer's on PostgreSQL only. */
  static List<Scenario> all(Target target) {
    AtomicLong keys = target.keys;
    boolean postgres = target.postgresUrl.isPresent();
    List<Scenario> all = new java.util.ArrayList<>();
    all.add(new BareInsert(target));
    all.add(new KeyedCreate(target, keys));
    if (postgres) {
      all.add(new PeerDbosCreate(target, keys));
    }
    all.add(new KeyedCreateLimited(target, keys));
    all.add(new Replay(target));
    if (postgres) {
      all.add(new PeerDbosReplay(target));
    }
    all.add(new TwoPhase(target, keys));
    all.add(new KeyedFloor(target, keys));
    all.add(new KeyedFloorDecided(target, keys));
    all.add(new HttpKeyedCreate(target, keys));
    all.add(new HttpReplay(target));
    all.add(new HttpFloor(target, "http-floor-servlet", HttpFloors.SERVLET));
    all.add(new HttpFloor(target, "http-floor-replay", HttpFloors.REPLAY));
    all.add(new HttpFloor(target, "http-floor-core", HttpFloors.CORE));
    all.add(new McpKeyedCreate(target, keys, false));
    all.add(new McpKeyedCreate(target, keys, true));
    all.add(new GuardKeyedCreate(target, false));
    all.add(new GuardKeyedCreate(target, true));
    all.add(new McpRawKeyedCreate(target, keys));
    all.add(new DeclarativeHttpCreate(target, keys));
    all.add(new DeclarativeFloor(target, keys));
    all.add(new UpstreamDirect(target, keys));
    return all;
  }

  /**
   * A declarative {@code kind: http} tool ({@value Target#REMOTE_TOOL}, loaded from a tools file)
   * through the real HTTP server, a new {@code Idempotency-Key} each call: the engine claims the
   * key (one commit), the tool POSTs the note to the in-process upstream with the operation's
   * downstream key, and the engine records the upstream's answer (a second commit). Set against
   * {@code decl-upstream-direct}, it is what making an idempotent REST endpoint safe to retry
   * through ToolLedger costs its callers.
   */
  static final class DeclarativeHttpCreate implements Scenario, AutoCloseable {
    private static final byte[] BODY = Target.NOTE.getBytes(StandardCharsets.UTF_8);
    private final Target target;
    private final Http1Clients http;
    private final AtomicLong keys;

    DeclarativeHttpCreate(Target target, AtomicLong keys) {
      this.target = target;
      this.http = new Http1Clients(target.app.uri());
      this.keys = keys;
    }

    @Override
    public String name() {
      return "decl-http-create";
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      Http1Clients.Response response =
          http.post(
              thread,
              "/v1/tools/" + Target.REMOTE_TOOL,
              Map.of(
                  "Authorization",
                  "Bearer " + target.token,
                  "Idempotency-Key",
                  newKey(target, keys),
                  "Content-Type",
                  "application/json"),
              BODY);
      expect(response, 201, "false");
    }

    @Override
    public void close() {
      http.close();
    }
  }

  /**
   * The least that any design which records an HTTP effect durably before and after it costs: a
   * ledger-shaped claim row committed, the upstream called once on the harness's own HTTP/1.1
   * sockets (the same request as {@code decl-upstream-direct}), the row completed and committed; no
   * engine, no history rows, no HTTP front. Set against {@code decl-upstream-direct}, it is the
   * bound the two commits put on any such design; {@code decl-http-create / decl-floor} is what
   * ToolLedger adds on top (its HTTP API, the engine, the operation history, the tool's client).
   */
  static final class DeclarativeFloor implements Scenario, AutoCloseable {
    private static final byte[] BODY = Target.NOTE.getBytes(StandardCharsets.UTF_8);
    private final Target target;
    private final Http1Clients upstream;
    private final AtomicLong keys;
    private final PlainTransactions plain;

    DeclarativeFloor(Target target, AtomicLong keys) {
      this.target = target;
      this.upstream = new Http1Clients(target.upstream.uri());
      this.keys = keys;
      this.plain = new PlainTransactions(target);
    }

    @Override
    public String name() {
      return "decl-floor";
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      String key = newKey(target, keys);
      long now = System.currentTimeMillis();
      plain.run(
          connection -> {
            try (PreparedStatement ps =
                connection.prepareStatement(
                    "INSERT INTO bench_floor (tenant, op_key, tool, tool_version, fingerprint,"
                        + " state, created_at, owner, lease_until, fence, parameters)"
                        + " VALUES (?, ?, 'create-remote-note', '1', ?, 'IN_PROGRESS', ?, ?, ?,"
                        + " 1, ?)")) {
              ps.setString(1, Target.TENANT.value());
              ps.setString(2, key);
              ps.setString(3, FLOOR_FINGERPRINT);
              ps.setLong(4, now);
              ps.setString(5, "bench/" + thread);
              ps.setLong(6, now + 30_000);
              ps.setString(7, Target.NOTE);
              return ps.executeUpdate();
            }
          });
      // The answer is read, as the tool reads it: it is what the completion records.
      Http1Clients.Response response =
          upstream.postReadingBody(
              thread,
              NotesUpstream.PATH,
              Map.of("Idempotency-Key", key, "Content-Type", "application/json"),
              BODY);
      if (response.status() != 201 || response.body() == null) {
        throw new IllegalStateException("the upstream answered HTTP " + response.status());
      }
      String answer = response.body();
      plain.run(
          connection -> {
            long at = System.currentTimeMillis();
            try (PreparedStatement ps =
                connection.prepareStatement(
                    "UPDATE bench_floor SET state = 'COMPLETED', response_status = 201,"
                        + " response_body = ?, completed_at = ?, expires_at = ?, owner = NULL,"
                        + " lease_until = NULL, parameters = NULL"
                        + " WHERE tenant = ? AND op_key = ? AND fence = 1"
                        + " AND state = 'IN_PROGRESS'")) {
              ps.setString(1, answer);
              ps.setLong(2, at);
              ps.setLong(3, at + Duration.ofDays(7).toMillis());
              ps.setString(4, Target.TENANT.value());
              ps.setString(5, key);
              if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("the claim of " + key + " was lost");
              }
              return null;
            }
          });
    }

    @Override
    public void close() {
      upstream.close();
    }

    private static final String FLOOR_FINGERPRINT = "0".repeat(64);
  }

  /**
   * The same clients calling the declarative tool's upstream directly: {@code POST /notes} with the
   * same body and a new {@code Idempotency-Key}, on the harness's HTTP/1.1 sockets.
   */
  static final class UpstreamDirect implements Scenario, AutoCloseable {
    private static final byte[] BODY = Target.NOTE.getBytes(StandardCharsets.UTF_8);
    private final Target target;
    private final Http1Clients http;
    private final AtomicLong keys;

    UpstreamDirect(Target target, AtomicLong keys) {
      this.target = target;
      this.http = new Http1Clients(target.upstream.uri());
      this.keys = keys;
    }

    @Override
    public String name() {
      return "decl-upstream-direct";
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      Http1Clients.Response response =
          http.post(
              thread,
              NotesUpstream.PATH,
              Map.of("Idempotency-Key", newKey(target, keys), "Content-Type", "application/json"),
              BODY);
      if (response.status() != 201) {
        throw new IllegalStateException("the upstream answered HTTP " + response.status());
      }
    }

    @Override
    public void close() {
      http.close();
    }
  }

  /**
   * The peer: a DBOS Transact workflow whose id is a new operation key and whose one step inserts
   * the note ({@link DbosPeer}), on the same PostgreSQL server. DBOS launches on the first call (in
   * the warm-up round), so that a run without it does not pay for its startup.
   */
  static final class PeerDbosCreate implements Scenario {
    private final Target target;
    private final AtomicLong keys;

    PeerDbosCreate(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
    }

    @Override
    public String name() {
      return "peer-dbos-create";
    }

    @Override
    public void run(int thread, long sequence) {
      target.dbos().create(newKey(target, keys));
    }
  }

  /**
   * The peer's replay: one of {@value DbosPeer#REPLAY_IDS} completed workflow ids again, whose
   * recorded output DBOS returns without running the step; checked to be the first run's note.
   */
  static final class PeerDbosReplay implements Scenario {
    private final Target target;

    PeerDbosReplay(Target target) {
      this.target = target;
    }

    @Override
    public String name() {
      return "peer-dbos-replay";
    }

    @Override
    public void run(int thread, long sequence) {
      // DBOS launches on the first call (in the warm-up round), so that a run without it does not
      // pay for its startup.
      DbosPeer dbos = target.dbos();
      int i = (int) ((sequence * 31 + thread) % DbosPeer.REPLAY_IDS);
      long note = dbos.create(dbos.replayId(i));
      if (note != dbos.replayNote(i)) {
        throw new IllegalStateException(
            "DBOS answered note " + note + " for a replay of note " + dbos.replayNote(i));
      }
    }
  }

  /**
   * The note insert alone, one transaction each, no ledger: the floor. It uses the same pool but
   * none of the store's transaction machinery: on SQLite its writers take turns on a fair lock (the
   * best a one-transaction-per-insert writer can do, without group commit); on PostgreSQL they run
   * in parallel.
   */
  static final class BareInsert implements Scenario {
    static final String INSERT =
        "INSERT INTO notes (tenant, title, body, created_at) VALUES (?, ?, ?, ?) RETURNING id";
    private final PlainTransactions plain;

    BareInsert(Target target) {
      this.plain = new PlainTransactions(target);
    }

    @Override
    public String name() {
      return "bare-insert";
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      plain.run(connection -> insertNote(connection, System.currentTimeMillis()));
    }

    /** Inserts the benchmark's note, as create-note would; returns its id. */
    static long insertNote(java.sql.Connection connection, long now) throws Exception {
      return insertNote(
          connection, Target.TENANT.value(), "benchmark note", "a note of ordinary size", now);
    }

    /**
     * The statement itself, also what the harness's create-note tool ({@link BenchNoteTool}) runs.
     */
    static long insertNote(
        java.sql.Connection connection, String tenant, String title, String body, long now)
        throws Exception {
      try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
        return insertNote(ps, tenant, title, body, now);
      }
    }

    /** The benchmark note through {@code ps}, a statement of {@link #INSERT} the caller keeps. */
    static long insertNote(PreparedStatement ps, long now) throws Exception {
      return insertNote(
          ps, Target.TENANT.value(), "benchmark note", "a note of ordinary size", now);
    }

    private static long insertNote(
        PreparedStatement ps, String tenant, String title, String body, long now) throws Exception {
      ps.setString(1, tenant);
      ps.setString(2, title);
      ps.setString(3, body);
      ps.setLong(4, now);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Plain transactions, one commit each, on the store's pool but without its transaction machinery
   * (no group commit): how an application without the ledger would write. On SQLite writers take
   * turns on a fair lock; on PostgreSQL they run in parallel.
   */
  static final class PlainTransactions {
    private final Target target;
    private final boolean sqlite;
    private final java.util.concurrent.Semaphore writer =
        new java.util.concurrent.Semaphore(1, true);

    PlainTransactions(Target target) {
      this.target = target;
      this.sqlite = target.store.dialect() == dev.toolledger.api.SqlDialect.SQLITE;
    }

    interface Work<T> {
      T run(java.sql.Connection connection) throws Exception;
    }

    <T> T run(Work<T> work) throws Exception {
      if (sqlite) {
        writer.acquire();
      }
      try (java.sql.Connection connection = target.store.dataSource().getConnection()) {
        if (sqlite) {
          try (java.sql.Statement st = connection.createStatement()) {
            st.execute("BEGIN IMMEDIATE");
          }
        } else {
          connection.setAutoCommit(false);
        }
        T result;
        try {
          result = work.run(connection);
        } catch (Exception e) {
          if (sqlite) {
            try (java.sql.Statement st = connection.createStatement()) {
              st.execute("ROLLBACK");
            }
          } else {
            connection.rollback();
          }
          throw e;
        }
        if (sqlite) {
          try (java.sql.Statement st = connection.createStatement()) {
            st.execute("COMMIT");
          }
        } else {
          connection.commit();
        }
        return result;
      } finally {
        if (sqlite) {
          writer.release();
        }
      }
    }
  }

  /** create-note through the engine, a new key each time. */
  static final class KeyedCreate implements Scenario {
    private final Target target;
    private final AtomicLong keys;

    KeyedCreate(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
    }

    @Override
    public String name() {
      return "keyed-create";
    }

    @Override
    public void run(int thread, long sequence) {
      ExecutionOutcome outcome =
          target.app.engine().execute(Target.invocation(newKey(target, keys)));
      if (!(outcome instanceof ExecutionOutcome.Executed)) {
        throw new IllegalStateException("keyed-create answered " + outcome.kind());
      }
    }
  }

  /**
   * {@code keyed-create} with the rate limit of new operations on, as the database's default scope
   * applies it (shared buckets in the database on PostgreSQL, in memory on SQLite), at a rate never
   * reached: what counting costs a new operation. Its own engine over the same store and tools.
   */
  static final class KeyedCreateLimited implements Scenario {
    private final AtomicLong keys;
    private final Target target;
    private final dev.toolledger.core.engine.LedgerEngine engine;

    KeyedCreateLimited(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
      dev.toolledger.core.engine.LedgerEngine.Builder builder =
          dev.toolledger.core.engine.LedgerEngine.builder(target.store, target.app.engine().tools())
              .listener(target.app.engine().listener())
              .config(
                  dev.toolledger.core.engine.EngineConfig.builder()
                      .nodeId("bench")
                      .newOperationLimit(
                          dev.toolledger.core.engine.RateLimit.perSecond(1_000_000_000L))
                      .build());
      if (target.store.dialect() == dev.toolledger.api.SqlDialect.POSTGRESQL) {
        builder.sharedRateBuckets(target.store.sharedRateBuckets());
      }
      this.engine = builder.build();
    }

    @Override
    public String name() {
      return "keyed-create-limited";
    }

    @Override
    public void run(int thread, long sequence) {
      ExecutionOutcome outcome = engine.execute(Target.invocation(newKey(target, keys)));
      if (!(outcome instanceof ExecutionOutcome.Executed)) {
        throw new IllegalStateException("keyed-create-limited answered " + outcome.kind());
      }
    }
  }

  /** Identical retries of completed operations. */
  static final class Replay implements Scenario {
    private final Target target;

    Replay(Target target) {
      this.target = target;
    }

    @Override
    public String name() {
      return "replay";
    }

    @Override
    public void run(int thread, long sequence) {
      target.replay(target.replayKey((int) ((sequence * 31 + thread) % Target.REPLAY_KEYS)));
    }
  }

  /**
   * The common alternative: claim the key in one transaction, perform the effect in a second, mark
   * it completed in a third, each a plain transaction of its own. Same validation and fingerprint
   * as the engine, so that the transaction design is what differs.
   */
  static final class TwoPhase implements Scenario {
    private final Target target;
    private final AtomicLong keys;
    private final RegisteredTool notes;

    private final PlainTransactions plain;

    TwoPhase(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
      this.plain = new PlainTransactions(target);
      this.notes = target.app.engine().tools().find("create-note").orElseThrow();
    }

    @Override
    public String name() {
      return "two-phase";
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      JsonNode parameters =
          ((Validation.Valid) notes.schema().validate(Json.parse(Target.NOTE))).parameters();
      String fingerprint = Fingerprinter.fingerprint("create-note", "1", parameters).hex();
      String key = newKey(target, keys);
      plain.run(
          connection -> {
            try (PreparedStatement ps =
                connection.prepareStatement(
                    "INSERT INTO bench_two_phase (tenant, op_key, fingerprint, state,"
                        + " created_at) VALUES (?, ?, ?, 'CLAIMED', ?)")) {
              ps.setString(1, Target.TENANT.value());
              ps.setString(2, key);
              ps.setString(3, fingerprint);
              ps.setLong(4, System.currentTimeMillis());
              return ps.executeUpdate();
            }
          });
      long id =
          plain.run(
              connection -> {
                try (PreparedStatement ps =
                    connection.prepareStatement(
                        "INSERT INTO notes (tenant, title, body, created_at)"
                            + " VALUES (?, ?, ?, ?) RETURNING id")) {
                  ps.setString(1, Target.TENANT.value());
                  ps.setString(2, parameters.get("title").asText());
                  ps.setString(3, parameters.get("body").asText());
                  ps.setLong(4, System.currentTimeMillis());
                  try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                  }
                }
              });
      String response =
          Json.write(
              Json.object()
                  .put("id", id)
                  .put("title", parameters.get("title").asText())
                  .put("body", parameters.get("body").asText()));
      plain.run(
          connection -> {
            try (PreparedStatement ps =
                connection.prepareStatement(
                    "UPDATE bench_two_phase SET state = 'COMPLETED', response_body = ?"
                        + " WHERE tenant = ? AND op_key = ?")) {
              ps.setString(1, response);
              ps.setString(2, Target.TENANT.value());
              ps.setString(3, key);
              return ps.executeUpdate();
            }
          });
    }
  }

  /**
   * The least that any design which commits its record in the effect's transaction must write: the
   * note and one ledger-shaped row (same columns and indexes as {@code tl_operations}, already
   * completed, with its response) in one plain transaction; no read, no claim, no engine. It is the
   * floor under {@code keyed-create}: {@code keyed-floor / bare-insert} is what the extra row costs
   * the database, {@code keyed-create / keyed-floor} what the engine adds on top (the read that
   * lets a replay open no write transaction, the claim, validation, fingerprint).
   */
  static final class KeyedFloor implements Scenario {
    private final Target target;
    private final AtomicLong keys;
    private final PlainTransactions plain;

    KeyedFloor(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
      this.plain = new PlainTransactions(target);
    }

    @Override
    public String name() {
      return "keyed-floor";
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      String key = newKey(target, keys);
      plain.run(
          connection -> {
            long now = System.currentTimeMillis();
            long id = BareInsert.insertNote(connection, now);
            try (PreparedStatement ps = connection.prepareStatement(INSERT_ROW)) {
              bindRow(ps, key, id, now);
              return ps.executeUpdate();
            }
          });
    }

    /** A fingerprint's length: what the ledger stores, not what it computes. */
    static final String FLOOR_FINGERPRINT = "0".repeat(64);

    /** The completed, ledger-shaped row; bound by {@link #bindRow}. */
    static final String INSERT_ROW =
        "INSERT INTO bench_floor (tenant, op_key, tool, tool_version, fingerprint, state,"
            + " response_status, response_body, created_at, completed_at, expires_at)"
            + " VALUES (?, ?, 'create-note', '1', ?, 'COMPLETED', 201, ?, ?, ?, ?)";

    static void bindRow(PreparedStatement ps, String key, long id, long now) throws Exception {
      ps.setString(1, Target.TENANT.value());
      ps.setString(2, key);
      ps.setString(3, FLOOR_FINGERPRINT);
      ps.setString(
          4,
          "{\"id\":" + id + ",\"title\":\"benchmark note\",\"body\":\"a note of ordinary size\"}");
      ps.setLong(5, now);
      ps.setLong(6, now);
      ps.setLong(7, now + Duration.ofDays(7).toMillis());
    }
  }

  /**
   * {@code keyed-floor} plus what a design must do to decide, before the tool runs, whether a key
   * is new, under the issue's own rule that a replay opens no write transaction; as plain JDBC,
   * with no engine, no validation and no fingerprint. It writes what {@code keyed-floor} writes,
   * and first reads the key as the ledger's claim does, with the ledger's statements:
   *
   * <ul>
   *   <li><b>SQLite</b>: the key's row read in auto-commit on a read connection of the thread's own
   *       (prepared once, as the store's read connections keep theirs) before the write transaction
   *       (a replay must not take the database's only write lock), then, under that lock, whether
   *       the key has a row or a tombstone, in one statement of one column (what was read before
   *       the lock decides nothing). The driver is told of each transaction, and that the read
   *       connections only read, as the store tells it ({@code SqliteDriverState}).
   *   <li><b>PostgreSQL</b>: in the transaction's first round trip, with the driver's {@code
   *       BEGIN}, the key's transaction-scoped advisory lock and one read of its row and tombstone;
   *       the row is then inserted with the {@code COMMIT}, in one round trip, as the ledger's
   *       record is. Three round trips, as {@code keyed-floor}'s.
   * </ul>
   *
   * <p>{@code keyed-create / keyed-floor-decided} is then what the engine's Java adds to those
   * statements, and {@code keyed-floor-decided / keyed-floor} what deciding first costs any design
   * that keeps a replay out of write transactions and never runs a tool for a recorded key.
   */
  static final class KeyedFloorDecided implements Scenario, AutoCloseable {
    /** The ledger's record columns and tombstone columns, as its claim reads them. */
    private static final String ROW_COLUMNS =
        "tenant, op_key, tool, tool_version, fingerprint, state, response_status, response_body,"
            + " created_at, completed_at, expires_at";

    private static final String TOMBSTONE_COLUMNS =
        "tool, fingerprint, expired_at, tombstone_until";

    private static final String ROW =
        "SELECT " + ROW_COLUMNS + " FROM bench_floor WHERE tenant = ? AND op_key = ?";

    /** SQLite, under the lock: whether the key has a row or a tombstone, as the ledger asks. */
    private static final String KEY_IS_KNOWN =
        "SELECT EXISTS (SELECT 1 FROM bench_floor WHERE tenant = ? AND op_key = ?)"
            + " OR EXISTS (SELECT 1 FROM bench_floor_tombstones WHERE tenant = ? AND op_key = ?)";

    /** PostgreSQL: the row and the tombstone in one read, as the ledger's claim reads them. */
    private static final String READ_KEY =
        "SELECT "
            + qualified("o", ROW_COLUMNS)
            + ", "
            + qualified("t", TOMBSTONE_COLUMNS)
            + " FROM (SELECT 1) AS k"
            + " LEFT JOIN bench_floor o ON o.tenant = ? AND o.op_key = ?"
            + " LEFT JOIN bench_floor_tombstones t ON t.tenant = ? AND t.op_key = ?";

    private static final String LOCK_AND_READ = "SELECT pg_advisory_xact_lock(?); " + READ_KEY;

    /** {@code columns} ("a, b") each prefixed with {@code alias} ("x.a, x.b"). */
    private static String qualified(String alias, String columns) {
      return alias + "." + columns.replace(", ", ", " + alias + ".");
    }

    private final Target target;
    private final AtomicLong keys;
    private final PlainTransactions plain;

    /** SQLite: each harness thread's read connection and its prepared read (see the class). */
    private final Map<Integer, PreparedStatement> reads = new ConcurrentHashMap<>();

    /** SQLite: the one writer's turn, its connection and its statements (see writeOnSqlite). */
    private final java.util.concurrent.Semaphore writer =
        new java.util.concurrent.Semaphore(1, true);

    private java.sql.Connection write;
    private final Map<String, PreparedStatement> writeStatements = new java.util.HashMap<>();

    KeyedFloorDecided(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
      this.plain = new PlainTransactions(target);
    }

    @Override
    public String name() {
      return "keyed-floor-decided";
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      String key = newKey(target, keys);
      if (target.sqliteUrl.isPresent()) {
        PreparedStatement read = reads.computeIfAbsent(thread, t -> openRead());
        if (readsARow(read, key)) {
          throw new IllegalStateException("a new key was found: " + key);
        }
        writeOnSqlite(key);
        return;
      }
      plain.run(
          connection -> {
            try (PreparedStatement ps = connection.prepareStatement(LOCK_AND_READ)) {
              // Any stable 64-bit number of the key will do for a floor; the ledger's is SHA-256's.
              ps.setLong(1, ((long) Target.TENANT.value().hashCode() << 32) ^ key.hashCode());
              bindKeyRead(ps, 2, key);
              ps.execute();
              if (!ps.getMoreResults()) {
                throw new IllegalStateException("the lock's read returned no rows");
              }
              try (ResultSet rs = ps.getResultSet()) {
                if (keyIsTaken(rs)) {
                  throw new IllegalStateException("a new key was found: " + key);
                }
              }
            }
            long now = System.currentTimeMillis();
            long id = BareInsert.insertNote(connection, now);
            try (PreparedStatement ps =
                connection.prepareStatement(KeyedFloor.INSERT_ROW + "; COMMIT")) {
              KeyedFloor.bindRow(ps, key, id, now);
              ps.execute();
            }
            // The server ended the transaction; the driver's commit() that follows is a no-op.
            return null;
          });
    }

    /**
     * SQLite's write: one writer at a time on a connection this scenario holds, its statements
     * prepared once, as the store's writer keeps its own ({@code BEGIN IMMEDIATE}, the reads under
     * the lock, the note's and the row's inserts, {@code COMMIT}). The note's insert is kept too:
     * on SQLite the tool's {@code prepareStatement} is served from the store's statement cache.
     */
    private void writeOnSqlite(String key) throws Exception {
      writer.acquire();
      try {
        if (write == null) {
          write = target.store.dataSource().getConnection();
        }
        // As the ledger's store does: the driver is told of the transaction as it begins, so it
        // does not step a BEGIN of its own after each statement (SqliteDriverState).
        org.sqlite.SQLiteConnectionConfig config =
            write.unwrap(org.sqlite.SQLiteConnection.class).getConnectionConfig();
        config.setAutoCommit(false);
        try {
          kept("BEGIN IMMEDIATE").execute();
        } catch (Exception e) {
          config.setAutoCommit(true);
          throw e;
        }
        try {
          if (keyIsKnown(kept(KEY_IS_KNOWN), key)) {
            throw new IllegalStateException("a new key was found: " + key);
          }
          long now = System.currentTimeMillis();
          long id = BareInsert.insertNote(kept(BareInsert.INSERT), now);
          PreparedStatement insert = kept(KeyedFloor.INSERT_ROW);
          KeyedFloor.bindRow(insert, key, id, now);
          // As the ledger runs its own inserts: without the driver's SELECT last_insert_rowid()
          // after each one, which only getGeneratedKeys() would read.
          boolean wanted = config.isGetGeneratedKeys();
          config.setGetGeneratedKeys(false);
          try {
            insert.executeUpdate();
          } finally {
            config.setGetGeneratedKeys(wanted);
          }
        } catch (Exception e) {
          kept("ROLLBACK").execute();
          config.setAutoCommit(true);
          throw e;
        }
        kept("COMMIT").execute();
        config.setAutoCommit(true);
      } finally {
        writer.release();
      }
    }

    /** Under the lock, as the ledger's SQLite claim reads a key: one statement, one column. */
    private static boolean keyIsKnown(PreparedStatement read, String key) throws Exception {
      bindKeyRead(read, 1, key);
      try (ResultSet rs = read.executeQuery()) {
        return rs.next() && rs.getInt(1) != 0;
      }
    }

    private PreparedStatement kept(String sql) throws java.sql.SQLException {
      PreparedStatement statement = writeStatements.get(sql);
      if (statement == null) {
        statement = write.prepareStatement(sql);
        writeStatements.put(sql, statement);
      }
      return statement;
    }

    private static void bindKeyRead(PreparedStatement ps, int first, String key)
        throws java.sql.SQLException {
      ps.setString(first, Target.TENANT.value());
      ps.setString(first + 1, key);
      ps.setString(first + 2, Target.TENANT.value());
      ps.setString(first + 3, key);
    }

    /** Column 1 is the row's tenant, 14 the tombstone's expired_at: never null in a row. */
    private static boolean keyIsTaken(ResultSet rs) throws java.sql.SQLException {
      if (!rs.next()) {
        throw new IllegalStateException("the key's read returned no row");
      }
      return rs.getString(1) != null || rs.getObject(14) != null;
    }

    private static boolean readsARow(PreparedStatement read, String key) throws Exception {
      read.setString(1, Target.TENANT.value());
      read.setString(2, key);
      try (ResultSet rs = read.executeQuery()) {
        return rs.next();
      }
    }

    private PreparedStatement openRead() {
      try {
        java.sql.Connection connection =
            java.sql.DriverManager.getConnection(target.sqliteUrl.orElseThrow());
        // As the store's read connections: told that they only read (SqliteDriverState).
        connection
            .unwrap(org.sqlite.SQLiteConnection.class)
            .getConnectionConfig()
            .setAutoCommit(false);
        return connection.prepareStatement(ROW);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException("cannot open a read connection: " + e.getMessage(), e);
      }
    }

    @Override
    public void close() throws Exception {
      for (PreparedStatement read : reads.values()) {
        java.sql.Connection connection = read.getConnection();
        read.close();
        connection.close();
      }
      reads.clear();
      for (PreparedStatement statement : writeStatements.values()) {
        statement.close();
      }
      writeStatements.clear();
      if (write != null) {
        write.close();
        write = null;
      }
    }
  }

  /** create-note through the real HTTP server, a new key each time. */
  static final class HttpKeyedCreate implements Scenario, AutoCloseable {
    private final Target target;
    private final Http1Clients http;
    private final AtomicLong keys;

    HttpKeyedCreate(Target target, AtomicLong keys) {
      this.target = target;
      this.http = new Http1Clients(target.app.uri());
      this.keys = keys;
    }

    @Override
    public String name() {
      return "http-keyed-create";
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      expect(post(target, http, thread, newKey(target, keys)), 201, "false");
    }

    @Override
    public void close() {
      http.close();
    }
  }

  /** Identical retries through the real HTTP server. */
  static final class HttpReplay implements Scenario, AutoCloseable {
    private final Target target;
    private final Http1Clients http;

    HttpReplay(Target target) {
      this.target = target;
      this.http = new Http1Clients(target.app.uri());
    }

    @Override
    public String name() {
      return "http-replay";
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      String key = target.replayKey((int) ((sequence * 31 + thread) % Target.REPLAY_KEYS));
      expect(post(target, http, thread, key), 201, "true");
    }

    @Override
    public void close() {
      http.close();
    }
  }

  /**
   * {@code http-replay}'s requests, bytes and clients, answered by one of {@link HttpFloors}: what
   * Jetty costs per request on the node's connector and threads without ToolLedger's work. The path
   * is {@code http-replay}'s behind the floor's context path (3 more bytes).
   */
  static final class HttpFloor implements Scenario, AutoCloseable {
    private final Target target;
    private final Http1Clients http;
    private final String name;
    private final String path;

    HttpFloor(Target target, String name, String contextPath) {
      this.target = target;
      this.http = new Http1Clients(target.app.uri());
      this.name = name;
      this.path = contextPath + "/v1/tools/create-note";
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      String key = target.replayKey((int) ((sequence * 31 + thread) % Target.REPLAY_KEYS));
      expect(http.post(thread, path, replayHeaders(target, key), NOTE_BYTES), 201, "true");
    }

    @Override
    public void close() {
      http.close();
    }
  }

  /**
   * create-note through the MCP endpoint (Streamable HTTP) with the official SDK client: one
   * initialized session per client thread, a new operation key in each call's {@code _meta}.
   * Sessions open on a thread's first call, which falls in the warm-up round. As {@code
   * mcp-keyed-create} the client runs over the SDK's own transport ({@code
   * HttpClientStreamableHttpTransport}, what a user of the SDK gets without ToolLedger's client);
   * as {@code mcp-lean-keyed-create}, the same SDK client runs over toolledger-client-mcp's {@link
   * LeanStreamableHttpTransport} (what {@code McpActionTransport} uses by default).
   */
  static final class McpKeyedCreate implements Scenario, AutoCloseable {
    private static final Map<String, Object> ARGUMENTS =
        Json.mapper().convertValue(Json.parse(Target.NOTE), new TypeReference<>() {});
    private final Target target;
    private final AtomicLong keys;
    private final boolean lean;
    // The lean variant has a token of its own: sessions are counted per token
    // (McpOptions.maxSessionsPerToken), and mcp-keyed-create holds one per client thread on the
    // target's token at the same time.
    private final String token;
    private final Map<Integer, McpSyncClient> clients = new ConcurrentHashMap<>();

    McpKeyedCreate(Target target, AtomicLong keys, boolean lean) {
      this.target = target;
      this.keys = keys;
      this.lean = lean;
      this.token =
          lean ? target.app.tokens().issue(Target.TENANT, "bench-mcp-lean").token() : target.token;
    }

    @Override
    public String name() {
      return lean ? "mcp-lean-keyed-create" : "mcp-keyed-create";
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) {
      McpSyncClient client = clients.computeIfAbsent(thread, t -> open());
      CallToolResult result =
          client.callTool(
              CallToolRequest.builder("create-note")
                  .arguments(ARGUMENTS)
                  .meta(Map.of(McpConventions.OPERATION_KEY, newKey(target, keys)))
                  .build());
      Object replayed = result.meta() == null ? null : result.meta().get(McpConventions.REPLAYED);
      if (Boolean.TRUE.equals(result.isError()) || !Boolean.FALSE.equals(replayed)) {
        throw new IllegalStateException("MCP call failed or replayed: " + result);
      }
    }

    private McpSyncClient open() {
      URI mcp = target.app.mcpUri().orElseThrow();
      McpClientTransport transport =
          lean
              ? LeanStreamableHttpTransport.builder(mcp)
                  .header("Authorization", "Bearer " + token)
                  .readTimeout(Duration.ofSeconds(30))
                  .build()
              : HttpClientStreamableHttpTransport.builder(mcp.resolve("/").toString())
                  .endpoint(McpConventions.PATH)
                  // HTTP/1.1, as toolledger-client-mcp sets it: the node serves HTTP/1.1, and the
                  // JDK client's default (HTTP/2) would offer an h2c upgrade on every new
                  // connection. No executor: a direct one runs the SDK's work on the client's
                  // selector thread, which the JDK documents as unsafe, and a fixed pool of 2
                  // measured no better than the default (docs/benchmarks.md, "Where MCP's time
                  // goes").
                  .clientBuilder(
                      java.net.http.HttpClient.newBuilder()
                          .version(java.net.http.HttpClient.Version.HTTP_1_1))
                  .addHttpRequestCustomizer(
                      (request, method, endpoint, body, context) ->
                          request.header("Authorization", "Bearer " + token))
                  .build();
      McpSyncClient client =
          McpClient.sync(transport)
              .requestTimeout(Duration.ofSeconds(30))
              .initializationTimeout(Duration.ofSeconds(30))
              .build();
      client.initialize();
      return client;
    }

    @Override
    public void close() {
      for (McpSyncClient client : clients.values()) {
        try {
          client.closeGracefully();
        } catch (RuntimeException e) {
          // The node is shutting down anyway; nothing was measured here.
        }
      }
      clients.clear();
    }
  }

  /**
   * {@code mcp-keyed-create} without the SDK's client: the same {@code tools/call create-note}
   * through {@code /mcp} (Streamable HTTP), written as raw JSON-RPC POSTs on the harness's own
   * HTTP/1.1 sockets ({@link Http1Clients}, as {@code http-keyed-create} uses). Each client thread
   * holds one initialized session ({@code initialize}, then {@code notifications/initialized}, on
   * its first call, which falls in the warm-up round); each call is then one POST whose answer, one
   * SSE event or one JSON body, is parsed and checked to be a success that was not replayed. Set
   * against {@code mcp-keyed-create} it isolates what the SDK's client costs; against {@code
   * http-keyed-create}, what the server's MCP path costs beyond the HTTP API's.
   */
  static final class McpRawKeyedCreate implements Scenario, AutoCloseable {
    private static final String PROTOCOL_VERSION = ProtocolVersions.MCP_2025_11_25;
    private final Target target;
    private final AtomicLong keys;
    private final Http1Clients http;
    private final String path;
    // A token of its own: sessions are counted per token (McpOptions.maxSessionsPerToken), and
    // mcp-keyed-create holds one per client thread on the target's token at the same time.
    private final String token;
    private final Map<Integer, String> sessions = new ConcurrentHashMap<>();

    McpRawKeyedCreate(Target target, AtomicLong keys) {
      this.target = target;
      this.keys = keys;
      URI mcp = target.app.mcpUri().orElseThrow();
      this.http = new Http1Clients(mcp);
      this.path = mcp.getRawPath();
      this.token = target.app.tokens().issue(Target.TENANT, "bench-mcp-raw").token();
    }

    @Override
    public String name() {
      return "mcp-raw-keyed-create";
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      String session = sessions.get(thread);
      if (session == null) {
        session = open(thread);
        sessions.put(thread, session);
      }
      String key = newKey(target, keys);
      // The key is the harness's own ("k-<hex>-<n>"): nothing in it needs escaping.
      String call =
          "{\"jsonrpc\":\"2.0\",\"id\":"
              + (sequence + 2)
              + ",\"method\":\"tools/call\",\"params\":{\"name\":\"create-note\","
              + "\"arguments\":"
              + Target.NOTE
              + ",\"_meta\":{\""
              + McpConventions.OPERATION_KEY
              + "\":\""
              + key
              + "\"}}}";
      Http1Clients.Response response =
          http.postReadingBody(
              thread, path, headers(session), call.getBytes(StandardCharsets.UTF_8));
      JsonNode result = answer(response).path("result");
      JsonNode meta = result.path("_meta");
      if (result.path("isError").asBoolean(true)
          || !meta.path(McpConventions.REPLAYED).isBoolean()
          || meta.path(McpConventions.REPLAYED).asBoolean()
          || !key.equals(meta.path(McpConventions.OPERATION_KEY).asText())) {
        throw new IllegalStateException("MCP call failed or replayed: " + result);
      }
    }

    /** Initializes a session on client {@code thread}'s connection; returns its id. */
    private String open(int thread) throws Exception {
      String initialize =
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
              + "\"protocolVersion\":\""
              + PROTOCOL_VERSION
              + "\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"toolledger-bench\",\"version\":\"1\"}}}";
      Http1Clients.Response response =
          http.postReadingBody(
              thread, path, headers(null), initialize.getBytes(StandardCharsets.UTF_8));
      if (answer(response).path("result").path("protocolVersion").isMissingNode()
          || response.sessionId() == null) {
        throw new IllegalStateException("MCP initialize answered without a session");
      }
      String session = response.sessionId();
      Http1Clients.Response initialized =
          http.post(
              thread,
              path,
              headers(session),
              "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
                  .getBytes(StandardCharsets.UTF_8));
      if (initialized.status() != 202) {
        throw new IllegalStateException(
            "MCP notifications/initialized answered " + initialized.status());
      }
      return session;
    }

    private Map<String, String> headers(String session) {
      Map<String, String> headers = new java.util.LinkedHashMap<>();
      headers.put("Authorization", "Bearer " + token);
      headers.put("Content-Type", "application/json");
      headers.put("Accept", "application/json, text/event-stream");
      headers.put("MCP-Protocol-Version", PROTOCOL_VERSION);
      if (session != null) {
        headers.put("Mcp-Session-Id", session);
      }
      return headers;
    }

    /** The JSON-RPC message of a 200 answer: the data of its one SSE event, or its JSON body. */
    private static JsonNode answer(Http1Clients.Response response) {
      String body = response.body();
      if (response.status() != 200 || body == null) {
        throw new IllegalStateException("MCP answered HTTP " + response.status());
      }
      String type = response.contentType() == null ? "" : response.contentType();
      if (!type.startsWith("text/event-stream")) {
        return Json.parse(body);
      }
      StringBuilder data = new StringBuilder(body.length());
      for (String line : body.split("\r?\n")) {
        if (line.startsWith("data:")) {
          if (data.length() > 0) {
            data.append('\n');
          }
          data.append(line, line.startsWith("data: ") ? 6 : 5, line.length());
        }
      }
      return Json.parse(data.toString());
    }

    @Override
    public void close() {
      sessions.forEach(
          (thread, session) -> {
            try {
              http.delete(thread, path, headers(session));
            } catch (Exception e) {
              // The node is shutting down anyway; nothing was measured here.
            }
          });
      sessions.clear();
      http.close();
    }
  }

  static String newKey(Target target, AtomicLong keys) {
    return "k-" + target.runId + "-" + keys.incrementAndGet();
  }

  static final byte[] NOTE_BYTES = Target.NOTE.getBytes(StandardCharsets.UTF_8);

  static Http1Clients.Response post(Target target, Http1Clients http, int client, String key)
      throws Exception {
    return http.post(client, "/v1/tools/create-note", replayHeaders(target, key), NOTE_BYTES);
  }

  /** The headers of a tool call: {@code http-replay}'s, and the HTTP floors'. */
  static Map<String, String> replayHeaders(Target target, String key) {
    return Map.of(
        "Authorization",
        "Bearer " + target.token,
        "Idempotency-Key",
        key,
        "Content-Type",
        "application/json");
  }

  static void expect(Http1Clients.Response response, int status, String replayed) {
    if (response.status() != status || !replayed.equals(response.replayed())) {
      throw new IllegalStateException(
          "HTTP " + response.status() + ", Idempotent-Replayed " + response.replayed());
    }
  }
}
