package dev.toolledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The floors: what a design without the ledger, or the least any design with one, writes per
 * operation, as plain JDBC transactions ({@link PlainTransactions}) on the target's store.
 */
final class FloorScenarios {
  private FloorScenarios() {}

  /** The benchmark note's insert; also what the harness's create-note tool runs. */
  static final String INSERT_NOTE =
      "INSERT INTO notes (tenant, title, body, created_at) VALUES (?, ?, ?, ?) RETURNING id";

  /** A fingerprint's length: what the ledger stores, not what it computes. */
  private static final String FLOOR_FINGERPRINT = "0".repeat(64);

  /** The completed, ledger-shaped row; bound by {@link #bindRow}. */
  static final String INSERT_ROW =
      "INSERT INTO bench_floor (tenant, op_key, tool, tool_version, fingerprint, state,"
          + " response_status, response_body, created_at, completed_at, expires_at)"
          + " VALUES (?, ?, 'create-note', '1', ?, 'COMPLETED', 201, ?, ?, ?, ?)";

  /**
   * The note insert alone, one transaction each, no ledger: the floor. It uses the same pool but
   * none of the store's transaction machinery: on SQLite its writers take turns on a fair lock (the
   * best a one-transaction-per-insert writer can do, without group commit); on PostgreSQL they run
   * in parallel.
   */
  static DefinedScenario bareInsert(Target target) {
    PlainTransactions plain = new PlainTransactions(target);
    return DefinedScenario.local(
        "bare-insert",
        (thread, sequence) ->
            plain.run(connection -> insertNote(connection, System.currentTimeMillis())));
  }

  /**
   * The common alternative: claim the key in one transaction, perform the effect in a second, mark
   * it completed in a third, each a plain transaction of its own. Same validation and fingerprint
   * as the engine, so that the transaction design is what differs.
   */
  static DefinedScenario twoPhase(Target target, AtomicLong keys) {
    PlainTransactions plain = new PlainTransactions(target);
    RegisteredTool notes = target.app.engine().tools().find("create-note").orElseThrow();
    return DefinedScenario.local(
        "two-phase",
        (thread, sequence) -> {
          JsonNode parameters =
              ((Validation.Valid) notes.schema().validate(Json.parse(Target.NOTE))).parameters();
          String fingerprint = Fingerprinter.fingerprint("create-note", "1", parameters).hex();
          String key = Scenarios.newKey(target, keys);
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
                  connection ->
                      insertNote(
                          connection,
                          Target.TENANT.value(),
                          parameters.get("title").asText(),
                          parameters.get("body").asText(),
                          System.currentTimeMillis()));
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
        });
  }

  /**
   * The least that any design which commits its record in the effect's transaction must write: the
   * note and one ledger-shaped row (same columns and indexes as {@code tl_operations}, already
   * completed, with its response) in one plain transaction; no read, no claim, no engine. It is the
   * floor under {@code keyed-create}: {@code keyed-floor / bare-insert} is what the extra row costs
   * the database, {@code keyed-create / keyed-floor} what the engine adds on top (the read that
   * lets a replay open no write transaction, the claim, validation, fingerprint).
   */
  static DefinedScenario keyedFloor(Target target, AtomicLong keys) {
    PlainTransactions plain = new PlainTransactions(target);
    return DefinedScenario.local(
        "keyed-floor",
        (thread, sequence) -> {
          String key = Scenarios.newKey(target, keys);
          plain.run(
              connection -> {
                long now = System.currentTimeMillis();
                long id = insertNote(connection, now);
                try (PreparedStatement ps = connection.prepareStatement(INSERT_ROW)) {
                  bindRow(ps, key, id, now);
                  return ps.executeUpdate();
                }
              });
        });
  }

  /** {@code keyed-floor} deciding first whether the key is new: see {@link KeyedFloorDecided}. */
  static DefinedScenario keyedFloorDecided(Target target, AtomicLong keys) {
    KeyedFloorDecided decided = new KeyedFloorDecided(target, keys);
    return DefinedScenario.local("keyed-floor-decided", decided::run, decided);
  }

  /**
   * The least that any design which records an HTTP effect durably before and after it costs: a
   * ledger-shaped claim row committed, the upstream called once on the harness's own HTTP/1.1
   * sockets (the same request as {@code decl-upstream-direct}), the row completed and committed; no
   * engine, no history rows, no HTTP front. Set against {@code decl-upstream-direct}, it is the
   * bound the two commits put on any such design; {@code decl-http-create / decl-floor} is what
   * ToolLedger adds on top (its HTTP API, the engine, the operation history, the tool's client).
   */
  static DefinedScenario declarativeFloor(Target target, AtomicLong keys) {
    Http1Clients upstream = new Http1Clients(target.upstream.uri());
    PlainTransactions plain = new PlainTransactions(target);
    return DefinedScenario.local(
        "decl-floor",
        (thread, sequence) -> {
          String key = Scenarios.newKey(target, keys);
          long now = System.currentTimeMillis();
          plain.run(
              connection -> {
                try (PreparedStatement ps =
                    connection.prepareStatement(
                        "INSERT INTO bench_floor (tenant, op_key, tool, tool_version, fingerprint,"
                            + " state, created_at, owner, lease_until, fence, parameters)"
                            + " VALUES (?, ?, 'create-remote-note', '1', ?, 'IN_PROGRESS', ?, ?,"
                            + " ?, 1, ?)")) {
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
                  Scenarios.NOTE_BYTES);
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
        },
        upstream);
  }

  /** Binds {@link #INSERT_ROW}: the completed row of {@code key}, whose note is {@code id}. */
  static void bindRow(PreparedStatement ps, String key, long id, long now) throws Exception {
    ps.setString(1, Target.TENANT.value());
    ps.setString(2, key);
    ps.setString(3, FLOOR_FINGERPRINT);
    ps.setString(
        4, "{\"id\":" + id + ",\"title\":\"benchmark note\",\"body\":\"a note of ordinary size\"}");
    ps.setLong(5, now);
    ps.setLong(6, now);
    ps.setLong(7, now + Duration.ofDays(7).toMillis());
  }

  /** Inserts the benchmark's note, as create-note would; returns its id. */
  static long insertNote(Connection connection, long now) throws Exception {
    return insertNote(
        connection, Target.TENANT.value(), "benchmark note", "a note of ordinary size", now);
  }

  /**
   * The statement itself, also what the harness's create-note tool ({@link BenchNoteTool}) runs.
   */
  static long insertNote(Connection connection, String tenant, String title, String body, long now)
      throws Exception {
    try (PreparedStatement ps = connection.prepareStatement(INSERT_NOTE)) {
      return insertNote(ps, tenant, title, body, now);
    }
  }

  /**
   * The benchmark note through {@code ps}, a statement of {@link #INSERT_NOTE} the caller keeps.
   */
  static long insertNote(PreparedStatement ps, long now) throws Exception {
    return insertNote(ps, Target.TENANT.value(), "benchmark note", "a note of ordinary size", now);
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
