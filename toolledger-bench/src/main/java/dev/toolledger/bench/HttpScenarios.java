package dev.toolledger.bench;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scenarios whose clients call over HTTP/1.1 on the harness's own sockets ({@link
 * Http1Clients}): the node's HTTP API, its floors, and the declarative tool's upstream.
 */
final class HttpScenarios {
  private HttpScenarios() {}

  /** create-note through the real HTTP server, a new key each time. */
  static DefinedScenario keyedCreate(Target target, AtomicLong keys) {
    Http1Clients http = new Http1Clients(target.app.uri());
    return DefinedScenario.remote(
        "http-keyed-create",
        (thread, sequence) ->
            Scenarios.expect(
                Scenarios.post(target, http, thread, Scenarios.newKey(target, keys)), 201, "false"),
        http);
  }

  /** Identical retries through the real HTTP server. */
  static DefinedScenario replay(Target target) {
    Http1Clients http = new Http1Clients(target.app.uri());
    return DefinedScenario.remote(
        "http-replay",
        (thread, sequence) -> {
          String key = target.replayKey(Scenarios.spread(thread, sequence, Target.REPLAY_KEYS));
          Scenarios.expect(Scenarios.post(target, http, thread, key), 201, "true");
        },
        http);
  }

  /**
   * {@code http-replay}'s requests, bytes and clients, answered by one of {@link HttpFloors}: what
   * Jetty costs per request on the node's connector and threads without ToolLedger's work. The path
   * is {@code http-replay}'s behind the floor's context path (3 more bytes).
   */
  static DefinedScenario floor(Target target, String name, String contextPath) {
    Http1Clients http = new Http1Clients(target.app.uri());
    String path = contextPath + "/v1/tools/create-note";
    return DefinedScenario.remote(
        name,
        (thread, sequence) -> {
          String key = target.replayKey(Scenarios.spread(thread, sequence, Target.REPLAY_KEYS));
          Scenarios.expect(
              http.post(thread, path, Scenarios.replayHeaders(target, key), Scenarios.NOTE_BYTES),
              201,
              "true");
        },
        http);
  }

  /**
   * A declarative {@code kind: http} tool ({@value Target#REMOTE_TOOL}, loaded from a tools file)
   * through the real HTTP server, a new {@code Idempotency-Key} each call: the engine claims the
   * key (one commit), the tool POSTs the note to the in-process upstream with the operation's
   * downstream key, and the engine records the upstream's answer (a second commit). Set against
   * {@code decl-upstream-direct}, it is what making an idempotent REST endpoint safe to retry
   * through ToolLedger costs its callers.
   */
  static DefinedScenario declarativeCreate(Target target, AtomicLong keys) {
    Http1Clients http = new Http1Clients(target.app.uri());
    return DefinedScenario.remote(
        "decl-http-create",
        (thread, sequence) ->
            Scenarios.expect(
                http.post(
                    thread,
                    "/v1/tools/" + Target.REMOTE_TOOL,
                    Scenarios.replayHeaders(target, Scenarios.newKey(target, keys)),
                    Scenarios.NOTE_BYTES),
                201,
                "false"),
        http);
  }

  /**
   * The same clients calling the declarative tool's upstream directly: {@code POST /notes} with the
   * same body and a new {@code Idempotency-Key}, on the harness's HTTP/1.1 sockets.
   */
  static DefinedScenario upstreamDirect(Target target, AtomicLong keys) {
    Http1Clients http = new Http1Clients(target.upstream.uri());
    return DefinedScenario.remote(
        "decl-upstream-direct",
        (thread, sequence) -> {
          Http1Clients.Response response =
              http.post(
                  thread,
                  NotesUpstream.PATH,
                  Map.of(
                      "Idempotency-Key",
                      Scenarios.newKey(target, keys),
                      "Content-Type",
                      "application/json"),
                  Scenarios.NOTE_BYTES);
          if (response.status() != 201) {
            throw new IllegalStateException("the upstream answered HTTP " + response.status());
          }
        },
        http);
  }
}
