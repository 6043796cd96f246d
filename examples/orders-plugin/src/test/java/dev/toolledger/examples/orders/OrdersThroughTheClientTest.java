package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ResumedAction;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent-side client ({@code toolledger-client}) calling {@code create-order}: its journal mints
 * the key before the first send and keeps it, so a lost answer, a second call of the same step and
 * a restarted agent all end at the one order placed first.
 */
class OrdersThroughTheClientTest {
  static final ObjectMapper JSON = new ObjectMapper();

  /** Fast retries, so a lost answer is retried at once; the rest as by default. */
  static final RetryPolicy QUICK =
      RetryPolicy.builder()
          .maxAttempts(3)
          .deadline(Duration.ofSeconds(30))
          .backoff(Duration.ofMillis(1), Duration.ofMillis(10))
          .build();

  @TempDir Path dir;
  OrdersNode node;
  String acme;
  JsonNode params;

  @BeforeEach
  void start() throws Exception {
    Path file = dir.resolve("ledger.db");
    node =
        new OrdersNode(
            () -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build()), new OrdersPlugin());
    acme = node.token("acme");
    params = JSON.readTree(OrdersSeedScenarioTest.ORDER);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  ToolLedgerClient client(URI base, ActionJournal journal, RetryPolicy policy) {
    return ToolLedgerClient.builder()
        .baseUri(base)
        .token(acme)
        .journal(journal)
        .retryPolicy(policy)
        .build();
  }

  JsonNode theOrder() throws Exception {
    long orderId = node.count("SELECT id FROM orders");
    return JSON.readTree("{\"orderId\":" + orderId + ",\"sku\":\"BOOK-1\",\"quantity\":2}");
  }

  @Test
  void theClientGetsTheOrderAndTheSameStepAgainAnswersFromTheJournalWithoutASecondOrder()
      throws Exception {
    try (ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"))) {
      ToolLedgerClient client = client(node.uri(), journal, QUICK);

      Outcome first = client.execute("chat-1", "step-1", "create-order", params);
      Outcome again = client.execute("chat-1", "step-1", "create-order", params);

      assertThat(first).isInstanceOf(Outcome.Completed.class);
      Outcome.Completed placed = (Outcome.Completed) first;
      assertThat(placed.status()).isEqualTo(201);
      assertThat(placed.replayed()).isFalse();
      assertThat(placed.body()).isEqualTo(theOrder());
      assertThat(again).isInstanceOf(Outcome.Completed.class);
      assertThat(again.key()).isEqualTo(placed.key());
      assertThat(((Outcome.Completed) again).body()).isEqualTo(placed.body());
      assertThat(node.orders()).isEqualTo(1);
      assertThat(node.operations()).isEqualTo(1);
      JournalEntry entry = journal.find("chat-1", "step-1").orElseThrow();
      assertThat(entry.status()).isEqualTo(ActionStatus.COMPLETED);
      assertThat(entry.key()).isEqualTo(placed.key());

      LookupResult looked = client.lookup(placed.key());
      assertThat(looked).isInstanceOf(LookupResult.Found.class);
      LookupResult.Found found = (LookupResult.Found) looked;
      assertThat(found.tool()).hasValue("create-order");
      assertThat(found.state()).isEqualTo(OperationState.COMPLETED);
      assertThat(found.response().orElseThrow().status()).isEqualTo(201);
    }
  }

  @Test
  void aLostAnswerIsRetriedUnderTheJournalsKeyAndReplaysTheOrder() throws Exception {
    try (ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        LossyProxy network = LossyProxy.start(node.uri(), DropPolicy.next(1, DropPolicy.posts()))) {
      ToolLedgerClient client = client(network.uri(), journal, QUICK);

      Outcome outcome = client.execute("chat-1", "step-1", "create-order", params);

      assertThat(network.dropped()).isOne();
      assertThat(outcome).isInstanceOf(Outcome.Completed.class);
      Outcome.Completed completed = (Outcome.Completed) outcome;
      assertThat(completed.status()).isEqualTo(201);
      assertThat(completed.replayed())
          .as("the first answer was lost; this one is a replay")
          .isTrue();
      assertThat(completed.body()).isEqualTo(theOrder());
      assertThat(node.orders()).isEqualTo(1);
      assertThat(node.operations()).isEqualTo(1);
    }
  }

  @Test
  void aRestartedAgentResumesTheUnansweredOrderWithItsKeyAndGetsTheOnePlacedFirst()
      throws Exception {
    Path journalFile = dir.resolve("journal.db");
    Outcome beforeTheCrash;
    try (ActionJournal journal = ActionJournal.sqlite(journalFile);
        LossyProxy deadNetwork = LossyProxy.start(node.uri(), exchange -> true)) {
      beforeTheCrash =
          client(deadNetwork.uri(), journal, QUICK)
              .execute("chat-1", "step-1", "create-order", params);
      assertThat(deadNetwork.dropped()).isEqualTo(QUICK.maxAttempts());
    }
    assertThat(beforeTheCrash).isInstanceOf(Outcome.Unknown.class);
    assertThat(node.orders()).as("the first attempt committed; its answer was lost").isEqualTo(1);

    try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
      assertThat(journal.workflowsWithUnfinishedActions()).containsExactly("chat-1");
      List<ResumedAction> resumed = client(node.uri(), journal, QUICK).resume("chat-1");

      assertThat(resumed).hasSize(1);
      assertThat(resumed.get(0).key()).isEqualTo(beforeTheCrash.key());
      assertThat(resumed.get(0).outcome()).isInstanceOf(Outcome.Completed.class);
      Outcome.Completed completed = (Outcome.Completed) resumed.get(0).outcome();
      assertThat(completed.status()).isEqualTo(201);
      assertThat(completed.replayed()).isTrue();
      assertThat(completed.body()).isEqualTo(theOrder());
      assertThat(journal.workflowsWithUnfinishedActions()).isEmpty();
    }
    assertThat(node.orders()).isEqualTo(1);
    assertThat(node.operations()).isEqualTo(1);
  }
}
