package dev.toolledger.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The harness's scenarios, by name and in order, and what their definitions share. Each is a {@link
 * DefinedScenario} defined by its family: {@link EngineScenarios} (the engine in the process, and
 * the DBOS peer), {@link FloorScenarios} (plain JDBC floors), {@link HttpScenarios} (HTTP/1.1
 * clients), {@link McpScenarios} (MCP clients), and {@link GuardKeyedCreate}. See the README's
 * benchmark section for what each measures.
 */
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
    all.add(FloorScenarios.bareInsert(target));
    all.add(EngineScenarios.keyedCreate(target, keys));
    if (postgres) {
      all.add(EngineScenarios.peerDbosCreate(target, keys));
    }
    all.add(EngineScenarios.keyedCreateLimited(target, keys));
    all.add(EngineScenarios.replay(target));
    if (postgres) {
      all.add(EngineScenarios.peerDbosReplay(target));
    }
    all.add(FloorScenarios.twoPhase(target, keys));
    all.add(FloorScenarios.keyedFloor(target, keys));
    all.add(FloorScenarios.keyedFloorDecided(target, keys));
    all.add(HttpScenarios.keyedCreate(target, keys));
    all.add(HttpScenarios.replay(target));
    all.add(HttpScenarios.floor(target, "http-floor-servlet", HttpFloors.SERVLET));
    all.add(HttpScenarios.floor(target, "http-floor-replay", HttpFloors.REPLAY));
    all.add(HttpScenarios.floor(target, "http-floor-core", HttpFloors.CORE));
    all.add(McpScenarios.sdkKeyedCreate(target, keys, false));
    all.add(McpScenarios.sdkKeyedCreate(target, keys, true));
    all.add(new GuardKeyedCreate(target, false));
    all.add(new GuardKeyedCreate(target, true));
    all.add(McpScenarios.rawKeyedCreate(target, keys));
    all.add(HttpScenarios.declarativeCreate(target, keys));
    all.add(FloorScenarios.declarativeFloor(target, keys));
    all.add(HttpScenarios.upstreamDirect(target, keys));
    return all;
  }

  /** A new operation key of this run. */
  static String newKey(Target target, AtomicLong keys) {
    return "k-" + target.runId + "-" + keys.incrementAndGet();
  }

  /**
   * Which of {@code count} recorded keys a replay scenario's thread sends at {@code sequence}:
   * spread so that threads do not send the same key at the same time.
   */
  static int spread(int thread, long sequence, int count) {
    return (int) ((sequence * 31 + thread) % count);
  }

  static final byte[] NOTE_BYTES = Target.NOTE.getBytes(StandardCharsets.UTF_8);

  static Http1Clients.Response post(Target target, Http1Clients http, int client, String key)
      throws Exception {
    return http.post(client, "/v1/tools/create-note", replayHeaders(target, key), NOTE_BYTES);
  }

  /** The headers of a tool call over HTTP with {@code key}: the HTTP scenarios' and floors'. */
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
