package dev.toolledger.client;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lost responses for real: a TCP proxy between client and server drops 30% of the POST responses
 * after the server committed and answered, and the client has to get every action to exactly one
 * note anyway.
 */
class LostResponsesTest {
  private static final int ACTIONS = 500;
  private static final int THREADS = 8;

  @TempDir Path dir;

  @Test
  void fiveHundredActionsOverANetworkLosingThirtyPercentOfResponsesMakeFiveHundredNotes()
      throws Exception {
    try (TestServer server = TestServer.start(dir);
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        LossyProxy network =
            LossyProxy.start(
                server.uri(), DropPolicy.fraction(0.3, 20261014L, DropPolicy.posts()))) {
      // Sized for this network: at 30% loss an action needs 0.43 retries on average, far above
      // the default budget's 0.1 per answer, which would (rightly) leave some actions Unknown.
      // 12 attempts make a run of 12 losses (0.3^12 per action) practically impossible.
      RetryPolicy lossyNetwork =
          RetryPolicy.builder()
              .maxAttempts(12)
              .deadline(Duration.ofSeconds(60))
              .backoff(Duration.ofMillis(1), Duration.ofMillis(20))
              .budget(1_000, 0, 1)
              .build();
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(network.uri())
              .token(server.token("acme"))
              .journal(journal)
              .retryPolicy(lossyNetwork)
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

      assertThat(network.dropped()).as("responses lost after the commit").isGreaterThan(100);
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

      assertThat(server.notes()).isEqualTo(ACTIONS);
      assertThat(server.count("SELECT COUNT(DISTINCT title) FROM notes")).isEqualTo(ACTIONS);
      assertThat(server.operations()).isEqualTo(ACTIONS);
      for (String key : keys) {
        assertThat(server.holdsKey(key)).isTrue();
      }
    }
  }
}
