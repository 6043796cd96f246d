package dev.toolledger.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.LossyProxy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same-action rule of {@link AgentRun} against a real server, proxy and journal file. */
class AgentRunTest {
  private static final JsonNode NOTE = Json.parse("{\"title\":\"Standup\"}");
  private static final JsonNode SAME_NOTE = Json.parse("{ \"title\" : \"Standup\" }");

  @TempDir Path dir;
  TestServer server;
  String token;
  ActionJournal journal;

  @BeforeEach
  void start() {
    server = TestServer.start(dir);
    token = server.token("acme");
    journal = ActionJournal.sqlite(dir.resolve("journal.db"));
  }

  @AfterEach
  void stop() {
    journal.close();
    server.close();
  }

  private ToolLedgerClient client(URI base) {
    return ToolLedgerClient.builder()
        .baseUri(base)
        .token(token)
        .journal(journal)
        .retryPolicy(
            RetryPolicy.builder()
                .maxAttempts(2)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                .build())
        .build();
  }

  @Test
  void identicalCallAfterADefinitiveOutcomeIsANewStepWithANewKey() throws Exception {
    AgentRun run = AgentRun.start(client(server.uri()), "run-1");

    AgentRun.Step first = run.call("create-note", NOTE);
    AgentRun.Step second = run.call("create-note", SAME_NOTE);

    assertThat(first.stepId()).isEqualTo("call-1");
    assertThat(second.stepId()).isEqualTo("call-2");
    assertThat(second.outcome().key()).isNotEqualTo(first.outcome().key());
    assertThat(((Outcome.Completed) second.outcome()).replayed()).isFalse();
    assertThat(server.notes()).isEqualTo(2);
  }

  @Test
  void identicalCallWhileTheOutcomeIsUnknownIsTheSameStepAndKey() throws Exception {
    RecordingPolicy seen = new RecordingPolicy(exchange -> exchange.method().equals("POST"));
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      AgentRun run = AgentRun.start(client(proxy.uri()), "run-2");

      AgentRun.Step first = run.call("create-note", NOTE);
      AgentRun.Step repeat = run.call("create-note", SAME_NOTE);

      assertThat(first.outcome()).isInstanceOf(Outcome.Unknown.class);
      assertThat(repeat.stepId()).isEqualTo("call-1");
      assertThat(repeat.outcome().key()).isEqualTo(first.outcome().key());
      assertThat(repeat.outcome()).as("settled by a lookup").isInstanceOf(Outcome.Completed.class);
      assertThat(seen.posts()).as("the policy's two attempts, none for the repeat").isEqualTo(2);
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void aNewPassMeetsTheJournaledStepsInOrderAndARefusedCallTakesNoPosition() throws Exception {
    ToolLedgerClient client = client(server.uri());
    AgentRun first = AgentRun.start(client, "run-3");
    first.call("create-note", NOTE);
    first.call("create-note", NOTE);

    AgentRun replay = AgentRun.start(client, "run-3");
    assertThatThrownBy(() -> replay.call("create-note", Json.parse("{\"title\":\"Other\"}")))
        .isInstanceOf(ActionConflictException.class)
        .hasMessageContaining("step call-1 of workflow run-3");
    AgentRun.Step one = replay.call("create-note", NOTE);
    AgentRun.Step two = replay.call("create-note", NOTE);
    AgentRun.Step three = replay.call("create-note", NOTE);

    assertThat(one.stepId()).isEqualTo("call-1");
    assertThat(two.stepId()).isEqualTo("call-2");
    assertThat(((Outcome.Completed) one.outcome()).replayed()).isTrue();
    assertThat(((Outcome.Completed) two.outcome()).replayed()).isTrue();
    assertThat(three.stepId()).isEqualTo("call-3");
    assertThat(((Outcome.Completed) three.outcome()).replayed()).isFalse();
    assertThat(server.notes()).isEqualTo(3);
    assertThat(journal.entries("run-3"))
        .extracting(JournalEntry::status)
        .containsOnly(ActionStatus.COMPLETED);
  }

  @Test
  void continuingAfterTheStepsAConversationHoldsTakesTheNextPosition() throws Exception {
    ToolLedgerClient client = client(server.uri());
    AgentRun.start(client, "run-4").call("create-note", NOTE);

    AgentRun continued = AgentRun.continueAfter(client, "run-4", 1);
    AgentRun.Step next = continued.call("create-note", Json.parse("{\"title\":\"Retro\"}"));

    assertThat(next.stepId()).isEqualTo("call-2");
    assertThat(server.notes()).isEqualTo(2);
    assertThatThrownBy(() -> AgentRun.continueAfter(client, "run-4", 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("step call-3 of run run-4");
    assertThatThrownBy(() -> AgentRun.start(client, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("run id");
    assertThat(AgentRun.position("call-12")).isEqualTo(12);
    assertThat(AgentRun.position("plan-1")).isZero();
  }
}
