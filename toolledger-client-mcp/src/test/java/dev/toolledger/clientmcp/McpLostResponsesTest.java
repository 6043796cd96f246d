package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.Outcome;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lost responses for real, over MCP: a TCP proxy between the SDK client and the server loses 30% of
 * the answers to {@code tools/call} of create-note after the server committed and answered. Every
 * action still ends {@link Outcome.Completed} with exactly one note, every retry carried the
 * journal's key, and the only retries on the wire are the client's.
 */
class McpLostResponsesTest {
  private static final int ACTIONS = 200;
  private static final int THREADS = 8;
  private static final long SEED = 20261115L;

  @TempDir Path dir;

  @Test
  void twoHundredActionsOverMcpLosingThirtyPercentOfAnswersMakeTwoHundredNotes() throws Exception {
    McpTraffic traffic =
        McpTraffic.losing("create-note", DropPolicy.fraction(0.3, SEED, e -> true));
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy network = LossyProxy.start(node.uri(), traffic);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp =
            McpActionTransport.streamableHttp(
                McpActionTransportTest.endpoint(network),
                node.token("acme"),
                Duration.ofSeconds(10))) {
      CountingTransport counting = new CountingTransport(mcp);
      // As in the HTTP client's LostResponsesTest: sized for this network, where an action needs
      // 0.43 retries on average, far above the default budget's 0.1 per answer.
      RetryPolicy lossyNetwork =
          RetryPolicy.builder()
              .maxAttempts(12)
              .deadline(Duration.ofSeconds(60))
              .backoff(Duration.ofMillis(1), Duration.ofMillis(20))
              .budget(1_000, 0, 1)
              .build();
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .journal(journal)
              .retryPolicy(lossyNetwork)
              .transport(counting)
              .build();

      ExecutorService agents = Executors.newFixedThreadPool(THREADS);
      List<Outcome> outcomes = new ArrayList<>();
      try {
        List<Future<Outcome>> calls = new ArrayList<>();
        for (int i = 0; i < ACTIONS; i++) {
          int n = i;
          calls.add(
              agents.submit(
                  () ->
                      client.execute(
                          "lossy",
                          "step-" + n,
                          "create-note",
                          Json.parse("{\"title\":\"note " + n + "\"}"))));
        }
        for (Future<Outcome> call : calls) {
          outcomes.add(call.get(120, TimeUnit.SECONDS));
        }
      } finally {
        agents.shutdownNow();
      }

      assertThat(network.dropped()).as("answers lost after the commit").isGreaterThan(30);
      for (int i = 0; i < ACTIONS; i++) {
        Outcome outcome = outcomes.get(i);
        assertThat(outcome).as("action %d", i).isInstanceOf(Outcome.Completed.class);
        Outcome.Completed completed = (Outcome.Completed) outcome;
        assertThat(completed.status()).isEqualTo(201);
        assertThat(completed.body().get("title").asText()).isEqualTo("note " + i);
      }
      long replayed = outcomes.stream().filter(o -> ((Outcome.Completed) o).replayed()).count();
      assertThat(replayed)
          .as("actions whose first answer was lost were answered by a replay")
          .isPositive()
          .isLessThanOrEqualTo(network.dropped());

      Set<String> keys = new HashSet<>();
      outcomes.forEach(o -> keys.add(o.key().value()));
      assertThat(keys).hasSize(ACTIONS);
      List<JournalEntry> journaled = journal.entries("lossy");
      assertThat(journaled).hasSize(ACTIONS).allMatch(e -> e.status() == ActionStatus.COMPLETED);
      assertThat(journaled).allMatch(e -> keys.contains(e.key().value()));

      // On the wire: every tools/call carried one of the journal's keys, and each key was sent
      // exactly as often as the client attempted it: the transport and the SDK added nothing.
      Map<String, Long> onTheWire = traffic.attemptsByKey("create-note");
      assertThat(onTheWire.keySet()).isEqualTo(keys);
      for (String key : keys) {
        assertThat(onTheWire.get(key)).as("attempts of %s", key).isEqualTo(counting.sends(key));
      }
      long calls = onTheWire.values().stream().mapToLong(Long::longValue).sum();
      assertThat(calls)
          .as("one answered call per action, plus one more for each lost answer")
          .isGreaterThanOrEqualTo(ACTIONS + network.dropped());

      assertThat(node.notes()).isEqualTo(ACTIONS);
      assertThat(node.count("SELECT COUNT(DISTINCT title) FROM notes")).isEqualTo(ACTIONS);
      assertThat(node.operations()).isEqualTo(ACTIONS);
      for (String key : keys) {
        assertThat(node.holdsKey(key)).isTrue();
      }
    }
  }
}
