package dev.toolledger.declarative.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.FreezeAfterPerform;
import dev.toolledger.declarative.Http;
import dev.toolledger.declarative.Http.Reply;
import dev.toolledger.declarative.ToolsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write tool of a real MCP server (the example tracker, a child process on the official SDK that
 * counts its own effects) behind real ToolLedger nodes on a real database, through the example
 * tools file examples/tools/tracker.yaml: the seed's scenario, answers lost after the effect, the
 * upstream killed mid-call, an upstream error, and a second node taking over a stale claim. The
 * tracker's own list of tickets is the proof in every test. Subclasses supply the database.
 */
abstract class McpToolContractTest {
  static final Path EXAMPLE = Path.of("../examples/tools/tracker.yaml");
  private static final String TOOL = "/v1/tools/create-ticket";
  private static final String TICKET = "{\"title\":\"Printer on fire\"}";
  private static final String PROBLEMS = "https://toolledger.dev/problems/";

  @TempDir Path dir;
  TrackerUpstream tracker;
  LedgerNodes nodes;
  final List<AutoCloseable> tools = new ArrayList<>();
  String acme;

  abstract LedgerNodes openNodes();

  @BeforeEach
  void tracker() throws Exception {
    tracker = new TrackerUpstream(Files.createDirectories(dir.resolve("tracker")));
  }

  @AfterEach
  void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
      nodes = null;
    }
    for (AutoCloseable tool : tools) {
      tool.close();
    }
    tools.clear();
  }

  /** The example file, or a variant of it with {@code edit} applied to its text. */
  ExternalTool load(java.util.function.UnaryOperator<String> edit) throws Exception {
    Path file = dir.resolve("tools-" + tools.size() + ".yaml");
    Files.writeString(file, edit.apply(Files.readString(EXAMPLE)));
    List<Tool> loaded = ToolsFile.load(file, tracker.stdioEnvironment(), ToolsFile.builtInKinds());
    ExternalTool tool = (ExternalTool) loaded.get(0);
    tools.add((AutoCloseable) tool);
    return tool;
  }

  static String withoutLookup(String yaml) {
    return yaml.substring(0, yaml.indexOf("    lookup:")) + "    lease: 30s\n";
  }

  private void start(ExternalTool tool) {
    nodes = openNodes();
    nodes.start(tool);
    acme = nodes.token("acme");
  }

  private Reply call(int node, String key, String parameters) {
    return Http.post(nodes.node(node), TOOL, acme, key, parameters);
  }

  private Reply call(String key, String parameters) {
    return call(0, key, parameters);
  }

  private JsonNode operation(String key) {
    return Http.get(nodes.node(0), "/v1/operations/" + key, acme).json();
  }

  @Test
  void seedScenarioThroughTheExampleReplaysConflictsScopesByTenantAndSurvivesARestart()
      throws Exception {
    start(load(yaml -> yaml));

    Reply first = call("t-1", TICKET);
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.header("Idempotent-Replayed")).isEqualTo("false");
    JsonNode ticket = first.json().get("structuredContent");
    assertThat(ticket.get("title").asText()).isEqualTo("Printer on fire");
    assertThat(ticket.get("ref").asText()).startsWith("tl2-");
    assertThat(first.json().get("content").get(0).get("text").asText())
        .isEqualTo("created " + ticket.get("id").asText());
    assertThat(tracker.ticketCount()).isEqualTo(1);

    Reply replay = call("t-1", TICKET);
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(tracker.ticketCount()).isEqualTo(1);

    Reply conflict = call("t-1", "{\"title\":\"Printer fixed\"}");
    assertThat(conflict.status()).isEqualTo(422);
    assertThat(conflict.problemType()).isEqualTo(PROBLEMS + "idempotency-key-reused");
    assertThat(tracker.ticketCount()).isEqualTo(1);

    Reply second = call("t-2", TICKET);
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(second.json().get("structuredContent").get("id")).isNotEqualTo(ticket.get("id"));
    assertThat(tracker.ticketCount()).isEqualTo(2);

    String globex = nodes.token("globex");
    Reply otherTenant = Http.post(nodes.node(0), TOOL, globex, "t-1", TICKET);
    assertThat(otherTenant.status()).isEqualTo(200);
    assertThat(otherTenant.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(otherTenant.json().get("structuredContent").get("ref"))
        .isNotEqualTo(ticket.get("ref"));
    assertThat(tracker.ticketCount()).isEqualTo(3);

    nodes.stop(0);
    nodes.start(load(yaml -> yaml));
    Reply afterRestart = call(1, "t-1", TICKET);
    assertThat(afterRestart.status()).isEqualTo(200);
    assertThat(afterRestart.body()).isEqualTo(first.body());
    assertThat(afterRestart.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(tracker.ticketCount()).isEqualTo(3);
  }

  @Test
  void answerLostAfterTheEffectWithoutLookupIsUnknownAndNeverCalledAgain() throws Exception {
    start(load(McpToolContractTest::withoutLookup));
    assertThat(call("warm-up", "{\"title\":\"first\"}").status()).isEqualTo(200);
    tracker.fault("lose-answer");

    Reply first = call("t-1", TICKET);
    Reply retry = call("t-1", TICKET);

    for (Reply reply : new Reply[] {first, retry}) {
      assertThat(reply.status()).isEqualTo(409);
      assertThat(reply.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    }
    assertThat(operation("t-1").get("state").asText()).isEqualTo("UNKNOWN");
    // The history says what happened in words, and names no class or library.
    assertThat(operation("t-1").get("history").toString())
        .contains("the call was sent and got no answer")
        .doesNotContain("Exception");
    assertThat(tracker.ticketCount()).isEqualTo(2);

    // The program died with the lost answer; the next operation starts it again.
    Reply next = call("t-2", TICKET);
    assertThat(next.status()).isEqualTo(200);
    assertThat(tracker.ticketCount()).isEqualTo(3);
  }

  @Test
  void answerLostAfterTheEffectIsSettledByTheLookupAndReplayed() throws Exception {
    start(load(yaml -> yaml));
    tracker.fault("lose-answer");

    Reply reply = call("t-1", TICKET);

    assertThat(reply.status()).isEqualTo(200);
    JsonNode ticket = reply.json().get("structuredContent");
    assertThat(ticket.get("title").asText()).isEqualTo("Printer on fire");
    assertThat(ticket.get("id").asText()).isEqualTo("T-1");
    assertThat(operation("t-1").get("history").toString()).contains("lookup found the effect");
    Reply retry = call("t-1", TICKET);
    assertThat(retry.body()).isEqualTo(reply.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(tracker.ticketCount()).isEqualTo(1);
  }

  @Test
  void upstreamKilledMidCallIsNotExecutedWhenTheLookupPromisesAbsence() throws Exception {
    start(
        load(
            yaml ->
                yaml.replace(
                    "      found: /ticket\n", "      found: /ticket\n      not-found: absent\n")));
    assertThat(call("warm-up", "{\"title\":\"first\"}").status()).isEqualTo(200);
    tracker.fault("hang-before-effect");

    CompletableFuture<Reply> pending = CompletableFuture.supplyAsync(() -> call("t-1", TICKET));
    while (!tracker.faultTaken()) {
      Thread.sleep(20);
    }
    tracker.killStdio();
    Reply reply = pending.get(60, TimeUnit.SECONDS);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "operation-not-executed");
    assertThat(operation("t-1").get("state").asText()).isEqualTo("NOT_EXECUTED");
    assertThat(call("t-1", TICKET).status()).isEqualTo(409);
    assertThat(tracker.ticketCount()).isEqualTo(1);
  }

  @Test
  void upstreamKilledMidCallWithoutLookupIsUnknown() throws Exception {
    start(load(McpToolContractTest::withoutLookup));
    assertThat(call("warm-up", "{\"title\":\"first\"}").status()).isEqualTo(200);
    tracker.fault("hang-after-effect");

    CompletableFuture<Reply> pending = CompletableFuture.supplyAsync(() -> call("t-1", TICKET));
    while (tracker.ticketCount() < 2) {
      Thread.sleep(20);
    }
    tracker.killStdio();
    Reply reply = pending.get(60, TimeUnit.SECONDS);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    assertThat(call("t-1", TICKET).problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    assertThat(tracker.ticketCount()).isEqualTo(2);
  }

  @Test
  void upstreamToolErrorIsRecordedAndReplayedAsABusinessError() throws Exception {
    start(load(yaml -> yaml));
    tracker.fault("refuse");

    Reply first = call("t-1", TICKET);
    Reply retry = call("t-1", TICKET);

    assertThat(first.status()).isEqualTo(422);
    assertThat(first.json().get("content").get(0).get("text").asText())
        .isEqualTo("the tracker refuses this title");
    assertThat(first.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(retry.status()).isEqualTo(422);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    // Had the retry reached the tracker, it would have created a ticket (the fault was used up).
    assertThat(tracker.ticketCount()).isZero();
  }

  @Test
  void staleClaimOfANodeThatStoppedAfterTheEffectIsTakenOverAndLookedUpOnce() throws Exception {
    java.util.function.UnaryOperator<String> shortLease =
        yaml ->
            yaml.replace("      timeout: 10s\n", "      timeout: 2s\n")
                .replace("    lease: 30s\n", "    lease: 6s\n");
    ExternalTool first = load(shortLease);
    ExternalTool second = load(shortLease);
    // Both nodes' programs are running before the race: starting one may take longer than the
    // short lease leaves for it (the call would then not be sent at all).
    ((McpTool) first).connect();
    ((McpTool) second).connect();
    FreezeAfterPerform frozen = new FreezeAfterPerform(first);
    nodes = openNodes();
    nodes.start(frozen);
    nodes.start(second);
    acme = nodes.token("acme");

    CompletableFuture<Reply> stuck = CompletableFuture.supplyAsync(() -> call(0, "t-1", TICKET));
    assertThat(frozen.performed.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(tracker.ticketCount()).isEqualTo(1);
    nodes.awaitExpiredLease();
    nodes.app(1).engine().recoverExpiredClaims(10);

    JsonNode operation = Http.get(nodes.node(1), "/v1/operations/t-1", acme).json();
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString())
        .contains("taken over")
        .contains("lookup found the effect");

    frozen.thaw();
    Reply late = stuck.get(30, TimeUnit.SECONDS);
    assertThat(late.json()).isEqualTo(operation.get("response").get("body"));
    Reply retry = call(1, "t-1", TICKET);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().get("structuredContent").get("id").asText()).isEqualTo("T-1");
    assertThat(tracker.ticketCount()).isEqualTo(1);
  }
}
