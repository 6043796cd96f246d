package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.testkit.HeldRequests;
import dev.toolledger.testkit.LossyProxy;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP transport against a real node (HTTP API and {@code /mcp} on port 0, real SQLite file),
 * driven through the official SDK client, with a {@link LossyProxy} in between that sees every
 * {@code tools/call} as it went over the wire.
 */
class McpActionTransportTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void keyedCreateCarriesTheJournalsKeyInMetaAndTheSecondExecuteOfTheStepSendsNothing()
      throws Exception {
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      ToolLedgerClient client = ToolLedgerClient.builder().journal(journal).transport(mcp).build();
      JsonNode params = Json.parse("{\"title\":\"groceries\"}");

      Outcome first = client.execute("chat-1", "step-1", "create-note", params);
      Outcome second = client.execute("chat-1", "step-1", "create-note", params);

      JournalEntry entry = journal.entries("chat-1").get(0);
      assertThat(first).isInstanceOf(Outcome.Completed.class);
      Outcome.Completed created = (Outcome.Completed) first;
      assertThat(created.status()).isEqualTo(201);
      assertThat(created.replayed()).isFalse();
      assertThat(created.key()).isEqualTo(entry.key());
      assertThat(created.body().get("title").asText()).isEqualTo("groceries");
      assertThat(second).isInstanceOf(Outcome.Completed.class);
      assertThat(((Outcome.Completed) second).replayed()).as("answered by the journal").isTrue();
      assertThat(((Outcome.Completed) second).body()).isEqualTo(created.body());

      List<McpTraffic.Call> calls = traffic.callsOf("create-note");
      assertThat(calls).as("one tools/call for two executes").hasSize(1);
      assertThat(calls.get(0).key()).hasValue(entry.key().value());
      assertThat(calls.get(0).arguments()).isEqualTo(params);
      assertThat(node.notes()).isEqualTo(1);
      assertThat(node.operations()).isEqualTo(1);
      assertThat(node.holdsKey(entry.key().value())).isTrue();
    }
  }

  @Test
  void callerBuiltAndInitializedClientCarriesTheKeyAndStaysTheCallersAfterClose() throws Exception {
    try (LedgerNode node = LedgerNode.start(dir);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"))) {
      String token = node.token("acme");
      McpSyncClient own =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder(node.uri().toString())
                      .endpoint("/mcp")
                      .addHttpRequestCustomizer(
                          (request, method, uri, body, context) ->
                              request.header("Authorization", "Bearer " + token))
                      .build())
              .requestTimeout(TIMEOUT)
              .build();
      try {
        own.initialize();
        Outcome outcome;
        try (McpActionTransport mcp = McpActionTransport.over(own)) {
          ToolLedgerClient client =
              ToolLedgerClient.builder().journal(journal).transport(mcp).build();
          outcome = client.execute("w", "s", "create-note", Json.parse("{\"title\":\"mine\"}"));
        }

        assertThat(outcome).isInstanceOf(Outcome.Completed.class);
        assertThat(node.holdsKey(outcome.key().value())).isTrue();
        CallToolResult stillMine =
            own.callTool(
                CallToolRequest.builder(McpActionTransport.GET_OPERATION)
                    .arguments(Map.of("key", outcome.key().value()))
                    .build());
        assertThat(stillMine.isError()).isFalse();
      } finally {
        own.closeGracefully();
      }
    }
  }

  @Test
  void sdkOwnTransportStaysSelectableAndCarriesTheSameCallsAsTheLeanDefault() throws Exception {
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(
                endpoint(proxy),
                node.token("acme"),
                TIMEOUT,
                McpActionTransport.HttpTransport.SDK)) {
      OperationKey key = newKey();
      Action action = Action.of("w", "s", "create-note", Json.parse("{\"title\":\"sdk\"}"));

      Outcome.Completed first = completed(mcp.send(key, action, TIMEOUT));
      Outcome.Completed again = completed(mcp.send(key, action, TIMEOUT));

      assertThat(first.replayed()).isFalse();
      assertThat(again.replayed()).isTrue();
      assertThat(traffic.attemptsByKey("create-note")).isEqualTo(Map.of(key.value(), 2L));
      assertThat(node.notes()).isEqualTo(1);
    }
  }

  @Test
  void sameKeySentAgainIsReplayedByTheServerWithTheRecordedBody() throws Exception {
    try (LedgerNode node = LedgerNode.start(dir);
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(node.mcpUri(), node.token("acme"), TIMEOUT)) {
      OperationKey key = newKey();
      Action action = Action.of("w", "s", "create-note", Json.parse("{\"title\":\"once\"}"));

      Outcome.Completed first = completed(mcp.send(key, action, TIMEOUT));
      Outcome.Completed again = completed(mcp.send(key, action, TIMEOUT));

      assertThat(first.replayed()).isFalse();
      assertThat(again.replayed()).isTrue();
      assertThat(again.status()).isEqualTo(201);
      assertThat(again.body()).isEqualTo(first.body());
      assertThat(node.notes()).isEqualTo(1);
    }
  }

  @Test
  void sameKeyWithOtherParametersIsRejectedAsKeyReusedAndTheJournalNeverLetsAStepDoThat()
      throws Exception {
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      OperationKey key = newKey();
      completed(
          mcp.send(
              key, Action.of("w", "s", "create-note", Json.parse("{\"title\":\"a\"}")), TIMEOUT));

      AttemptResult<Outcome> reuse =
          mcp.send(
              key, Action.of("w", "s", "create-note", Json.parse("{\"title\":\"b\"}")), TIMEOUT);

      assertThat(reuse).isInstanceOf(AttemptResult.Done.class);
      Outcome.Rejected rejected = (Outcome.Rejected) ((AttemptResult.Done<Outcome>) reuse).value();
      assertThat(rejected.problem().is(ProblemType.KEY_REUSED)).isTrue();
      assertThat(rejected.problem().status()).isEqualTo(422);
      assertThat(node.notes()).isEqualTo(1);

      ToolLedgerClient client = ToolLedgerClient.builder().journal(journal).transport(mcp).build();
      client.execute("w", "s", "create-note", Json.parse("{\"title\":\"a\"}"));
      int callsBefore = traffic.calls.size();
      assertThatThrownBy(
              () -> client.execute("w", "s", "create-note", Json.parse("{\"title\":\"b\"}")))
          .isInstanceOf(ActionConflictException.class);
      assertThat(traffic.calls).as("nothing sent for the conflicting step").hasSize(callsBefore);
    }
  }

  @Test
  void everyToolsCallCarriesItsJournalKeyInMetaAndOnlyTheParametersAsArguments() throws Exception {
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      ToolLedgerClient client = ToolLedgerClient.builder().journal(journal).transport(mcp).build();
      List<Action> actions =
          List.of(
              Action.of("w", "ok", "create-note", Json.parse("{\"title\":\"fine\"}")),
              Action.of(
                  "w",
                  "too-long",
                  "create-note",
                  Json.parse("{\"title\":\"" + "x".repeat(201) + "\"}")),
              Action.of("w", "no-such-tool", "create-nte", Json.parse("{\"title\":\"typo\"}")),
              // An argument that looks like a key is an argument: never read as the key.
              Action.of(
                  "w",
                  "key-shaped",
                  "create-note",
                  Json.parse(
                      "{\"title\":\"t\",\"dev.toolledger/operation-key\":\"chosen-by-model\"}")));

      List<Outcome> outcomes = actions.stream().map(client::call).toList();

      assertThat(outcomes.get(0)).isInstanceOf(Outcome.Completed.class);
      assertThat(rejection(outcomes.get(1))).isEqualTo(ProblemType.INVALID_PARAMETERS);
      assertThat(rejection(outcomes.get(2))).isEqualTo(ProblemType.UNKNOWN_TOOL);
      assertThat(rejection(outcomes.get(3))).isEqualTo(ProblemType.INVALID_PARAMETERS);
      assertThat(traffic.calls).hasSize(actions.size());
      for (int i = 0; i < actions.size(); i++) {
        McpTraffic.Call call = traffic.calls.get(i);
        JournalEntry entry =
            journal.find(actions.get(i).workflowId(), actions.get(i).stepId()).orElseThrow();
        assertThat(call.key()).as(actions.get(i).stepId()).hasValue(entry.key().value());
        assertThat(call.arguments()).isEqualTo(actions.get(i).parameters());
        assertThat(call.arguments().toString()).doesNotContain(entry.key().value());
      }
      assertThat(node.holdsKey("chosen-by-model")).isFalse();
      assertThat(node.notes()).isEqualTo(1);

      assertThatThrownBy(() -> mcp.send(null, actions.get(0), TIMEOUT))
          .isInstanceOf(NullPointerException.class);
      assertThat(traffic.calls).as("no call without a key").hasSize(actions.size());
    }
  }

  @Test
  void refusalsAreRejectedAfterOneCallAndNeverRetried() throws Exception {
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir, LedgerNode::smallRequests);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .journal(journal)
              .transport(mcp)
              .retryPolicy(RetryPolicy.builder().maxAttempts(5).build())
              .build();

      Outcome invalid = client.execute("w", "1", "create-note", Json.parse("{\"title\":\"\"}"));
      Outcome unknownTool = client.execute("w", "2", "delete-everything", Json.parse("{}"));
      Outcome tooLarge =
          client.execute(
              "w",
              "3",
              "create-note",
              Json.parse("{\"title\":\"" + "y".repeat(2 * LedgerNode.MAX_REQUEST_BYTES) + "\"}"));
      Outcome notAnObject = client.execute("w", "4", "create-note", Json.parse("[\"title\"]"));

      assertThat(rejection(invalid)).isEqualTo(ProblemType.INVALID_PARAMETERS);
      assertThat(rejection(unknownTool)).isEqualTo(ProblemType.UNKNOWN_TOOL);
      assertThat(rejection(tooLarge)).isEqualTo(ProblemType.PAYLOAD_TOO_LARGE);
      assertThat(rejection(notAnObject)).isEqualTo(ProblemType.INVALID_PARAMETERS);
      assertThat(traffic.calls)
          .extracting(McpTraffic.Call::status)
          .as("one call each for the first three, none for arguments that are not an object")
          .containsExactly(200, 200, 413);
      assertThat(node.operations()).isZero();
    }
  }

  @Test
  void refusedTokenIsRejectedAsUnauthorizedWithoutAnyToolCall() throws Exception {
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(
                endpoint(proxy), "tl_000000000000_forgedforgedforged", TIMEOUT)) {
      AttemptResult<Outcome> refused =
          mcp.send(
              newKey(),
              Action.of("w", "s", "create-note", Json.parse("{\"title\":\"x\"}")),
              TIMEOUT);

      assertThat(refused).isInstanceOf(AttemptResult.Done.class);
      assertThat(rejection(((AttemptResult.Done<Outcome>) refused).value()))
          .isEqualTo(ProblemType.UNAUTHORIZED);
      assertThat(traffic.calls).isEmpty();
      assertThat(traffic.methods).containsExactly("initialize");
    }
  }

  @Test
  void lostAnswerIsOneRetryableAttemptAndTheClientsAttemptsAreTheOnlyCallsOnTheWire()
      throws Exception {
    McpTraffic traffic = McpTraffic.losing("create-note", exchange -> true);
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      OperationKey key = newKey();
      AttemptResult<Outcome> one =
          mcp.send(
              key, Action.of("w", "s", "create-note", Json.parse("{\"title\":\"x\"}")), TIMEOUT);

      assertThat(one).isInstanceOf(AttemptResult.Retry.class);
      assertThat(traffic.callsOf("create-note")).as("one attempt, one tools/call").hasSize(1);

      CountingTransport counting = new CountingTransport(mcp);
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .journal(journal)
              .transport(counting)
              .retryPolicy(
                  RetryPolicy.builder()
                      .maxAttempts(3)
                      .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                      .build())
              .build();
      Outcome outcome = client.execute("w", "s2", "create-note", Json.parse("{\"title\":\"y\"}"));

      assertThat(outcome).isInstanceOf(Outcome.Unknown.class);
      String journalKey = outcome.key().value();
      assertThat(counting.sends(journalKey)).isEqualTo(3);
      assertThat(traffic.attemptsByKey("create-note"))
          .containsEntry(journalKey, 3L)
          .containsEntry(key.value(), 1L)
          .hasSize(2);
      assertThat(node.notes()).as("each key executed once, its retries replayed").isEqualTo(2);
      assertThat(proxy.dropped()).isEqualTo(4);
    }
  }

  @Test
  void attemptThatOutlivesItsTimeoutIsRetryableAndTheNextAttemptGetsTheLateOutcome()
      throws Exception {
    GatedNoteTool gated = new GatedNoteTool();
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir, app -> app.tool(gated));
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic);
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      mcp.lookup(
          newKey(), TIMEOUT); // initializes the session, so the short attempt is only the call
      OperationKey key = newKey();
      Action action = Action.of("w", "s", GatedNoteTool.NAME, Json.parse("{\"title\":\"late\"}"));

      AttemptResult<Outcome> cut = mcp.send(key, action, Duration.ofMillis(300));
      assertThat(gated.entered.await(30, TimeUnit.SECONDS))
          .as("the call reached the tool")
          .isTrue();
      gated.release.countDown();
      Outcome.Completed late = completed(mcp.send(key, action, TIMEOUT));

      assertThat(cut).isInstanceOf(AttemptResult.Retry.class);
      assertThat(((AttemptResult.Retry<Outcome>) cut).reason()).startsWith("no answer within");
      assertThat(late.replayed()).as("the first attempt executed it").isTrue();
      assertThat(late.body().get("title").asText()).isEqualTo("late");
      assertThat(traffic.attemptsByKey(GatedNoteTool.NAME))
          .containsExactly(Map.entry(key.value(), 2L));
      assertThat(node.notes()).isEqualTo(1);
    }
  }

  @Test
  void attemptCutWhileTheSessionIsStillInitializingLeavesTheClientUsable() throws Exception {
    HeldRequests held = HeldRequests.posts();
    McpTraffic traffic = McpTraffic.forwardAll();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), traffic, held);
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(endpoint(proxy), node.token("acme"), TIMEOUT)) {
      OperationKey key = newKey();
      Action action = Action.of("w", "s", "create-note", Json.parse("{\"title\":\"x\"}"));

      AttemptResult<Outcome> cut = mcp.send(key, action, Duration.ofMillis(300));
      assertThat(held.awaitHeld(1, Duration.ofSeconds(30)))
          .as("initialize was on its way")
          .isTrue();
      held.release();
      Outcome.Completed next = completed(mcp.send(key, action, TIMEOUT));

      assertThat(cut).isInstanceOf(AttemptResult.Retry.class);
      assertThat(next.body().get("title").asText()).isEqualTo("x");
      assertThat(traffic.methods).containsOnlyOnce("initialize");
      // The cut attempt's call was left to finish, so its tools/call may have gone out late, with
      // the same key: at most one call per attempt, one note.
      assertThat(traffic.attemptsByKey("create-note").get(key.value())).isBetween(1L, 2L);
      assertThat(node.notes()).isEqualTo(1);
    }
  }

  @Test
  void serverRestartThatForgetsTheSessionCostsOneRetryAndTheNextAttemptOpensANewSession()
      throws Exception {
    Path ledger = Files.createDirectories(dir.resolve("ledger"));
    McpTraffic traffic = McpTraffic.forwardAll();
    LedgerNode first = LedgerNode.start(ledger);
    int port = first.uri().getPort();
    String token = first.token("acme");
    LedgerNode second = null;
    try (LossyProxy proxy = LossyProxy.start(first.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"))) {
      McpActionTransport mcp = McpActionTransport.streamableHttp(endpoint(proxy), token, TIMEOUT);
      try {
        CountingTransport counting = new CountingTransport(mcp);
        ToolLedgerClient client =
            ToolLedgerClient.builder()
                .journal(journal)
                .transport(counting)
                .retryPolicy(
                    RetryPolicy.builder()
                        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                        .build())
                .build();
        Outcome before = client.execute("w", "1", "create-note", Json.parse("{\"title\":\"one\"}"));
        first.close();
        // The same database and port, a new process as far as MCP sessions go.
        second =
            LedgerNode.start(
                ledger,
                app ->
                    app.serverConfig(
                        ServerConfig.builder().port(port).shutdownGrace(Duration.ZERO).build()));

        Outcome after = client.execute("w", "2", "create-note", Json.parse("{\"title\":\"two\"}"));

        assertThat(before).isInstanceOf(Outcome.Completed.class);
        assertThat(after).isInstanceOf(Outcome.Completed.class);
        assertThat(counting.sends(after.key().value()))
            .as("the first attempt used the forgotten session")
            .isGreaterThan(1);
        assertThat(traffic.methods)
            .containsSubsequence("initialize", "tools/call", "initialize", "tools/call");
        assertThat(second.notes()).isEqualTo(2);
      } finally {
        mcp.close();
      }
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  @Test
  void unreachableServerIsARetryableTransportFailure() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (McpActionTransport mcp =
        McpActionTransport.streamableHttp(
            URI.create("http://127.0.0.1:" + closedPort + "/mcp"), "tl_token", TIMEOUT)) {
      AttemptResult<Outcome> send =
          mcp.send(newKey(), Action.of("w", "s", "create-note", Json.parse("{}")), TIMEOUT);

      assertThat(send).isInstanceOf(AttemptResult.Retry.class);
      assertThat(((AttemptResult.Retry<Outcome>) send).reason()).startsWith("transport failure");
      assertThat(mcp.lookup(newKey(), TIMEOUT)).isInstanceOf(AttemptResult.Retry.class);
    }
  }

  // ---------------------------------------------------------------------------------------------

  static URI endpoint(LossyProxy proxy) {
    return proxy.uri().resolve("/mcp");
  }

  static OperationKey newKey() {
    return OperationKey.of("test-" + UUID.randomUUID());
  }

  static Outcome.Completed completed(AttemptResult<Outcome> result) {
    assertThat(result).isInstanceOf(AttemptResult.Done.class);
    Outcome outcome = ((AttemptResult.Done<Outcome>) result).value();
    assertThat(outcome).isInstanceOf(Outcome.Completed.class);
    return (Outcome.Completed) outcome;
  }

  static ProblemType rejection(Outcome outcome) {
    assertThat(outcome).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) outcome).problem().knownType().orElseThrow();
  }
}
