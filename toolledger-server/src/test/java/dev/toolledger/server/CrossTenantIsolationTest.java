package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.mcp.McpConventions;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OWASP API1 (broken object-level authorization), for every endpoint that takes a key: a second
 * tenant can neither read, replay, resolve nor even detect the first tenant's operations.
 *
 * <p>The proof compares two worlds, each a real node on a database of its own, with the same frozen
 * clock and the same bearer tokens. In the first, tenant A has used the keys under test (a
 * completed operation, an UNKNOWN one, one still IN_PROGRESS, and one expired and swept into a
 * tombstone); in the second, A did the same work under other keys, so the keys under test were
 * never used by anyone. Tenant B then sends the same requests with those keys in both worlds, and
 * every answer must be the same byte for byte: status, headers (all but Date and the random
 * X-Request-Id, whose presence is still compared) and body, over HTTP and MCP. A's operations must
 * be untouched afterwards.
 */
abstract class CrossTenantIsolationTest {
  static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
  static final TenantId A = TenantId.of("acme");
  static final TenantId B = TenantId.of("globex");
  static final String NOTE = "{\"title\":\"milk\"}";

  /** The states A's operations are in when B probes their keys. */
  static final List<String> STATES = List.of("done", "unknown", "running", "expired");

  /** Every way B can reach a key, each tried on a key of its own. */
  static final List<String> PROBES =
      List.of("lookup", "resolve", "inquiry", "call", "mcp-call", "mcp-lookup");

  /** Opens the database of one world; each call is a new, empty database. */
  protected abstract JdbcLedgerStore openStore();

  /** Removes the worlds' databases, once their stores are closed. */
  protected void dropDatabases() {}

  final List<World> worlds = new ArrayList<>();
  final String tokenA = token("0000000000aa");
  final String tokenB = token("0000000000bb");

  /** A bearer token whose id and secret the test chooses, so both worlds can hold the same one. */
  static String token(String id) {
    return "tl_" + id + "_" + "s".repeat(43);
  }

  static String hash(String token) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  /** One node on a database of its own. */
  final class World implements AutoCloseable {
    final MovableClock clock = new MovableClock(T0);
    final MailTool mail = new MailTool();
    final JdbcLedgerStore store;
    final ToolLedgerApp app;
    final List<McpSyncClient> clients = new ArrayList<>();

    World() throws Exception {
      store = openStore();
      app =
          ToolLedgerApp.builder(store)
              .plugin(NotesPlugin.serving(NotesTool.unlimited()))
              .engineConfig(
                  EngineConfig.builder()
                      .clock(clock)
                      .nodeId("node-1")
                      .unlimitedNewOperations()
                      .build())
              .tool(mail)
              .sweepInterval(Duration.ZERO)
              .recoveryInterval(Duration.ZERO)
              .relayEnabled(false)
              .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
              .start();
      for (var entry : Map.of(tokenA, A, tokenB, B).entrySet()) {
        store.insert(
            new TokenRecord(
                entry.getKey().substring(3, 15),
                hash(entry.getKey()),
                Optional.of(entry.getValue()),
                Scopes.tenantAll(),
                "test",
                T0,
                Optional.empty()));
      }
    }

    /** A's work: one operation per state and probe, under {@code prefix}-STATE-PROBE keys. */
    void tenantAWorks(String prefix) {
      for (String probe : PROBES) {
        assertThat(note(tokenA, prefix + "-expired-" + probe).status()).isEqualTo(201);
      }
      clock.advance(Duration.ofDays(7));
      assertThat(app.engine().sweep(500).swept()).isEqualTo(PROBES.size());
      for (String probe : PROBES) {
        assertThat(note(tokenA, prefix + "-done-" + probe).status()).isEqualTo(201);
        mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
        Reply unknown =
            Http.post(
                app.uri(),
                "/v1/tools/send-mail",
                tokenA,
                prefix + "-unknown-" + probe,
                "{\"to\":\"a\"}");
        assertThat(unknown.problemType()).endsWith("/outcome-unknown");
        ClaimResult running =
            store.inTransaction(
                tx ->
                    tx.claimLeased(
                        new NewOperation(
                            A,
                            OperationKey.of(prefix + "-running-" + probe),
                            new OperationIntent(
                                "send-mail",
                                "1",
                                Fingerprinter.fingerprint(
                                    "send-mail", "1", Json.parse("{\"to\":\"a\"}"))),
                            clock.instant()),
                        new LeaseClaim("node-9", Duration.ofHours(1), "{\"to\":\"a\"}"),
                        Duration.ZERO));
        assertThat(running).isInstanceOf(ClaimResult.Claimed.class);
      }
      mail.next.set(MailTool.Next.SEND);
    }

    Reply note(String token, String key) {
      return Http.createNote(app.uri(), token, key, NOTE);
    }

    McpSyncClient mcp(String token) {
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder(app.uri().toString())
                      .endpoint(McpConventions.PATH)
                      .addHttpRequestCustomizer(
                          (request, method, endpoint, body, context) ->
                              request.header("Authorization", "Bearer " + token))
                      .build())
              .requestTimeout(Duration.ofSeconds(30))
              .initializationTimeout(Duration.ofSeconds(30))
              .build();
      clients.add(client);
      client.initialize();
      return client;
    }

    /** B's probe of one key, as everything that left the server. */
    String probe(String probe, String key) {
      return switch (probe) {
        case "lookup" -> http(Http.get(app.uri(), "/v1/operations/" + key, tokenB));
        case "resolve" ->
            http(
                Http.post(
                    app.uri(),
                    "/v1/operations/" + key + "/resolve",
                    tokenB,
                    null,
                    "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"probing\"}"));
        case "inquiry" ->
            http(Http.post(app.uri(), "/v1/operations/" + key + "/resolve", tokenB, null, "{}"));
        case "call" -> http(note(tokenB, key));
        case "mcp-call" ->
            answer(
                mcp(tokenB)
                    .callTool(
                        CallToolRequest.builder("create-note")
                            .arguments(Map.of("title", "milk"))
                            .meta(Map.of(McpConventions.OPERATION_KEY, key))
                            .build()));
        case "mcp-lookup" ->
            answer(
                mcp(tokenB)
                    .callTool(
                        CallToolRequest.builder(McpConventions.GET_OPERATION)
                            .arguments(Map.of("key", key))
                            .build()));
        default -> throw new IllegalArgumentException(probe);
      };
    }

    /** What A sees of one of its keys. */
    String ownView(String key) {
      return http(Http.get(app.uri(), "/v1/operations/" + key, tokenA));
    }

    @Override
    public void close() {
      for (McpSyncClient client : clients) {
        try {
          client.closeGracefully();
        } catch (RuntimeException ignored) {
          // The server is going away too.
        }
      }
      app.close();
      store.close();
    }
  }

  /**
   * Status, every header but Date (sorted, names lower-cased; X-Request-Id's value masked) and the
   * body, as one text.
   */
  static String http(Reply reply) {
    Map<String, List<String>> headers = new TreeMap<>();
    reply
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              if (name.equalsIgnoreCase("x-request-id")) {
                // A fresh random id per request: present in both worlds, never equal.
                headers.put("x-request-id", List.of("<random>"));
              } else if (!name.equalsIgnoreCase("date")) {
                headers.put(name.toLowerCase(Locale.ROOT), values);
              }
            });
    return reply.status() + "\n" + headers + "\n" + reply.body();
  }

  /** A tool result, whole: content, structured content, error flag and _meta. */
  static String answer(CallToolResult result) {
    try {
      return Json.mapper().writeValueAsString(result);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @BeforeEach
  void buildTheWorlds() throws Exception {
    World used = new World();
    worlds.add(used);
    World unused = new World();
    worlds.add(unused);
    used.tenantAWorks("k");
    unused.tenantAWorks("other");
  }

  @AfterEach
  void closeTheWorlds() {
    worlds.forEach(World::close);
    dropDatabases();
  }

  @Test
  void theSecondTenantGetsTheSameAnswerForTheFirstTenantsKeysAsForKeysNeverUsed() {
    World used = worlds.get(0);
    World unused = worlds.get(1);
    List<String> ownBefore = new ArrayList<>();
    for (String state : STATES) {
      for (String probe : PROBES) {
        ownBefore.add(used.ownView("k-" + state + "-" + probe));
      }
    }

    for (String state : STATES) {
      for (String probe : PROBES) {
        String key = "k-" + state + "-" + probe;
        String whereAUsedIt = used.probe(probe, key);
        String whereNobodyDid = unused.probe(probe, key);

        assertThat(whereAUsedIt)
            .as("B's %s of a key A holds %s", probe, state)
            .isEqualTo(whereNobodyDid);
      }
    }

    List<String> ownAfter = new ArrayList<>();
    for (String state : STATES) {
      for (String probe : PROBES) {
        ownAfter.add(used.ownView("k-" + state + "-" + probe));
      }
    }
    assertThat(ownAfter).as("A's operations after B's probes").isEqualTo(ownBefore);
  }

  @Test
  void whatTheSecondTenantGetsIsItsOwnAnswerNeverTheFirstTenants() {
    World used = worlds.get(0);

    assertThat(used.probe("lookup", "k-done-lookup")).startsWith("404");
    assertThat(used.probe("lookup", "k-expired-lookup")).startsWith("404");
    assertThat(used.probe("resolve", "k-unknown-resolve")).startsWith("404");
    assertThat(used.probe("inquiry", "k-done-inquiry")).startsWith("200").contains("\"fenced\"");
    assertThat(used.probe("call", "k-running-call"))
        .startsWith("201")
        .contains("idempotent-replayed=[false]");
    assertThat(used.probe("mcp-lookup", "k-done-mcp-lookup")).contains("/problems/not-found");
    assertThat(used.probe("mcp-call", "k-expired-mcp-call"))
        .contains("\"dev.toolledger/replayed\":false");
  }
}
