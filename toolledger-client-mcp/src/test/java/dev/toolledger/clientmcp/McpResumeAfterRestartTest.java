package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ResumedAction;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent host stops with a workflow half done and a new one takes over the same journal file:
 * lookup and resume over MCP finish every action with its original key, without executing anything
 * twice.
 */
class McpResumeAfterRestartTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void newClientOnTheSameJournalLooksUpWhatRanAndSendsOnlyWhatNeverDid() throws Exception {
    Path journalFile = dir.resolve("agent-journal.db");
    try (LedgerNode node = LedgerNode.start(dir)) {
      String token = node.token("acme");
      Map<String, String> keysBefore;

      // The first process: the server executes steps 1-3 but every answer is lost, and the
      // process stops after journaling steps 4-5 and before sending them.
      McpTraffic lossy = McpTraffic.losing("create-note", DropPolicy.next(3, e -> true));
      try (LossyProxy network = LossyProxy.start(node.uri(), lossy);
          ActionJournal journal = ActionJournal.sqlite(journalFile);
          McpActionTransport mcp =
              McpActionTransport.streamableHttp(
                  McpActionTransportTest.endpoint(network), token, TIMEOUT)) {
        ToolLedgerClient first =
            ToolLedgerClient.builder()
                .journal(journal)
                .transport(mcp)
                .retryPolicy(RetryPolicy.builder().maxAttempts(1).build())
                .build();
        for (int step = 1; step <= 3; step++) {
          assertThat(first.execute("wf", "step-" + step, "create-note", note(step)))
              .isInstanceOf(Outcome.Unknown.class);
        }
        journal.record(Action.of("wf", "step-4", "create-note", note(4)));
        journal.record(Action.of("wf", "step-5", "create-note", note(5)));
        keysBefore = keys(journal);
        assertThat(network.dropped()).isEqualTo(3);
      }
      assertThat(node.notes()).as("steps 1-3 ran on the server").isEqualTo(3);

      // The second process: a new journal object on the same file, a new transport and client.
      McpTraffic traffic = McpTraffic.forwardAll();
      try (LossyProxy network = LossyProxy.start(node.uri(), traffic);
          ActionJournal journal = ActionJournal.sqlite(journalFile);
          McpActionTransport mcp =
              McpActionTransport.streamableHttp(
                  McpActionTransportTest.endpoint(network), token, TIMEOUT)) {
        ToolLedgerClient second =
            ToolLedgerClient.builder().journal(journal).transport(mcp).build();
        assertThat(journal.workflowsWithUnfinishedActions()).containsExactly("wf");

        LookupResult ran = second.lookup(journal.find("wf", "step-1").orElseThrow().key());
        LookupResult neverSent = second.lookup(journal.find("wf", "step-4").orElseThrow().key());
        assertThat(ran).isInstanceOf(LookupResult.Found.class);
        LookupResult.Found found = (LookupResult.Found) ran;
        assertThat(found.state()).isEqualTo(OperationState.COMPLETED);
        assertThat(found.tool()).hasValue("create-note");
        assertThat(found.response().orElseThrow().status()).isEqualTo(201);
        assertThat(Json.parse(found.response().orElseThrow().body()).get("title").asText())
            .isEqualTo("note 1");
        assertThat(neverSent).isInstanceOf(LookupResult.NotFound.class);

        List<ResumedAction> resumed = second.resume("wf");

        assertThat(resumed)
            .extracting(r -> r.action().stepId())
            .containsExactly("step-1", "step-2", "step-3", "step-4", "step-5");
        for (ResumedAction r : resumed) {
          int step = Integer.parseInt(r.action().stepId().substring("step-".length()));
          assertThat(r.key().value())
              .as("original key")
              .isEqualTo(keysBefore.get(r.action().stepId()));
          assertThat(r.outcome()).as(r.action().stepId()).isInstanceOf(Outcome.Completed.class);
          Outcome.Completed completed = (Outcome.Completed) r.outcome();
          assertThat(completed.status()).isEqualTo(201);
          assertThat(completed.body().get("title").asText()).isEqualTo("note " + step);
          assertThat(completed.replayed())
              .as("completed from the server's record")
              .isEqualTo(step <= 3);
        }
        assertThat(journal.entries("wf")).allMatch(e -> e.status() == ActionStatus.COMPLETED);
        assertThat(journal.workflowsWithUnfinishedActions()).isEmpty();
        assertThat(keys(journal)).isEqualTo(keysBefore);

        // On the wire after the restart: a lookup for each action, a tools/call only for the two
        // that never reached the server, each with its journal key.
        assertThat(traffic.attemptsByKey("create-note"))
            .isEqualTo(Map.of(keysBefore.get("step-4"), 1L, keysBefore.get("step-5"), 1L));
        assertThat(traffic.callsOf(McpActionTransport.GET_OPERATION))
            .extracting(c -> c.arguments().path("key").asText())
            .containsExactlyInAnyOrder(
                keysBefore.get("step-1"),
                keysBefore.get("step-4"),
                keysBefore.get("step-1"),
                keysBefore.get("step-2"),
                keysBefore.get("step-3"),
                keysBefore.get("step-4"),
                keysBefore.get("step-5"));
      }
      assertThat(node.notes()).isEqualTo(5);
      assertThat(node.operations()).isEqualTo(5);
      for (String key : keysBefore.values()) {
        assertThat(node.holdsKey(key)).isTrue();
      }
    }
  }

  private static JsonNode note(int step) {
    return Json.parse("{\"title\":\"note " + step + "\"}");
  }

  private static Map<String, String> keys(ActionJournal journal) {
    return journal.entries("wf").stream()
        .collect(Collectors.toMap(e -> e.action().stepId(), (JournalEntry e) -> e.key().value()));
  }
}
