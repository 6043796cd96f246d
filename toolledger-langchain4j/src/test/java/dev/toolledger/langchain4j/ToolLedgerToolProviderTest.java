package dev.toolledger.langchain4j;

import static dev.toolledger.langchain4j.ScriptedChatModel.answer;
import static dev.toolledger.langchain4j.ScriptedChatModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.tool.ToolExecution;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real LangChain4j AI Service (its own tool loop, a scripted {@code ChatModel}) whose write tool
 * is ToolLedger's {@code create-note} on a real node, reached through a real lossy proxy, with a
 * real SQLite journal on the agent's side.
 */
class ToolLedgerToolProviderTest {
  private static final String CREATE_NOTE = "create-note";
  private static final String REPORT = "{\"title\":\"Quarterly report\"}";

  @TempDir Path dir;
  private NotesNode node;
  private String token;
  private ActionJournal journal;

  @BeforeEach
  void start() {
    node = NotesNode.start(dir.resolve("server"));
    token = node.token("acme");
    journal = ActionJournal.sqlite(dir.resolve("agent-journal.db"));
  }

  @AfterEach
  void stop() {
    if (journal != null) {
      journal.close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void lostAnswerIsRetriedByTheClientWithTheSameKeyAndTheModelGetsTheReplayedNote()
      throws Exception {
    Recording network = new Recording(DropPolicy.next(1, DropPolicy.posts()));
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ScriptedChatModel model = new ScriptedChatModel(call(CREATE_NOTE, REPORT), answer("Done: "));
      Agent agent = agent(model, client(proxy, quickRetries(5)));

      Result<String> result = agent.chat("Create a note titled Quarterly report", run("run-1"));

      assertThat(proxy.dropped()).as("the first answer was lost after the commit").isEqualTo(1);
      assertThat(network.posts()).as("one retry, by the client").isEqualTo(2);
      assertThat(node.notes()).as("exactly one effect").isEqualTo(1);
      assertThat(node.operations()).isEqualTo(1);

      ToolExecutionResultMessage seen = model.toolResultsSeen().get(0);
      JsonNode text = Json.parse(seen.text());
      assertThat(seen.isError()).isFalse();
      assertThat(text.path("outcome").asText()).isEqualTo("completed");
      assertThat(text.path("replayed").asBoolean()).as("the retry got the recorded note").isTrue();
      assertThat(text.path("result").path("title").asText()).isEqualTo("Quarterly report");
      assertThat(result.content()).startsWith("Done: ").contains("Quarterly report");

      LedgerToolCall call = ledgerCall(result.toolExecutions().get(0));
      assertThat(call.stepId()).isEqualTo("call-1");
      assertThat(call.succeeded()).isTrue();
      JournalEntry entry = journal.find("run-1", "call-1").orElseThrow();
      assertThat(entry.status()).isEqualTo(ActionStatus.COMPLETED);
      assertThat(call.outcome().key()).isEqualTo(entry.key());
      assertThat(node.holdsKey(entry.key().value()))
          .as("the note is recorded under the journal's key")
          .isTrue();
    }
  }

  @Test
  void twoDeliberateIdenticalCallsInOneRunAreTwoNotesUnderTwoKeys() throws Exception {
    Recording network = new Recording(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              call(CREATE_NOTE, REPORT),
              // the same note again, arguments spelled otherwise, after the first was completed
              call(CREATE_NOTE, "{ \"title\" : \"Quarterly report\" }"),
              answer("Done: "));
      Agent agent = agent(model, client(proxy, quickRetries(3)));

      Result<String> result = agent.chat("Create two notes titled Quarterly report", run("run-2"));

      assertThat(network.posts()).as("both sent").isEqualTo(2);
      assertThat(node.notesTitled("Quarterly report")).isEqualTo(2);
      List<ToolExecutionResultMessage> seen = model.toolResultsSeen();
      assertThat(seen).hasSize(2);
      JsonNode first = Json.parse(seen.get(0).text());
      JsonNode second = Json.parse(seen.get(1).text());
      assertThat(first.path("replayed").asBoolean()).isFalse();
      assertThat(second.path("replayed").asBoolean()).as("carried out, not replayed").isFalse();
      assertThat(second.path("result").path("id").asLong())
          .isNotEqualTo(first.path("result").path("id").asLong());
      assertThat(result.toolExecutions())
          .extracting(e -> ledgerCall(e).stepId())
          .containsExactly("call-1", "call-2");
      List<JournalEntry> steps = journal.entries("run-2");
      assertThat(steps).extracting(JournalEntry::key).hasSize(2).doesNotHaveDuplicates();
      assertThat(steps).extracting(JournalEntry::status).containsOnly(ActionStatus.COMPLETED);
      for (JournalEntry step : steps) {
        assertThat(node.holdsKey(step.key().value())).as(step.stepId()).isTrue();
      }
    }
  }

  @Test
  void replayedRunMeetsItsJournaledStepsInOrderAndOnlyNewStepsAreSent() throws Exception {
    Recording network = new Recording(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ToolLedgerClient client = client(proxy, quickRetries(3));
      agent(
              new ScriptedChatModel(
                  call(CREATE_NOTE, REPORT), call(CREATE_NOTE, REPORT), answer("Done: ")),
              client)
          .chat("Create two notes titled Quarterly report", run("run-7"));
      assertThat(network.posts()).isEqualTo(2);

      // The same run again (a replay from the user's request): the model asks for both notes
      // again, then for one more.
      ScriptedChatModel replayed =
          new ScriptedChatModel(
              call(CREATE_NOTE, REPORT),
              call(CREATE_NOTE, REPORT),
              call(CREATE_NOTE, "{\"title\":\"Minutes\"}"),
              answer("Done: "));
      Result<String> result =
          agent(replayed, client).chat("Create two notes titled Quarterly report", run("run-7"));

      assertThat(result.toolExecutions())
          .extracting(e -> ledgerCall(e).stepId())
          .containsExactly("call-1", "call-2", "call-3");
      assertThat(replayed.toolResultsSeen())
          .extracting(m -> Json.parse(m.text()).path("replayed").asBoolean())
          .containsExactly(true, true, false);
      assertThat(network.posts()).as("only the new step was sent").isEqualTo(3);
      assertThat(node.notesTitled("Quarterly report")).isEqualTo(2);
      assertThat(node.notes()).isEqualTo(3);
      assertThat(journal.entries("run-7")).hasSize(3);
    }
  }

  @Test
  void withAChatMemoryTheNextInvocationOfTheRunContinuesAfterTheStepsItsConversationHolds()
      throws Exception {
    Recording network = new Recording(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              call(CREATE_NOTE, REPORT),
              answer("Done: "),
              call(CREATE_NOTE, "{\"title\":\"Minutes\"}"),
              answer("Done: "));
      Agent agent =
          AiServices.builder(Agent.class)
              .chatModel(model)
              .chatMemory(MessageWindowChatMemory.withMaxMessages(20))
              .toolProvider(
                  ToolLedgerToolProvider.builder()
                      .client(client(proxy, quickRetries(3)))
                      .tools(ToolLedgerCatalog.fetch(node.uri(), token))
                      .build())
              .build();

      agent.chat("Create a note titled Quarterly report", run("run-8"));
      Result<String> next = agent.chat("And one titled Minutes", run("run-8"));

      assertThat(next.toolExecutions())
          .extracting(e -> ledgerCall(e).stepId())
          .as("the memory holds call-1 with its result: the run continues, no conflict")
          .containsExactly("call-2");
      assertThat(journal.entries("run-8"))
          .extracting(e -> e.action().parameters().path("title").asText())
          .containsExactly("Quarterly report", "Minutes");
      assertThat(network.posts()).isEqualTo(2);
      assertThat(node.notes()).isEqualTo(2);
    }
  }

  @Test
  void unknownOutcomeIsToldToTheModelAsNotKnownAndItsRepeatSettlesTheSameKeyByLookup()
      throws Exception {
    Recording network = new Recording(DropPolicy.posts()::test);
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ActionStatus[] statusWhenTheModelWasTold = new ActionStatus[1];
      ScriptedChatModel model =
          new ScriptedChatModel(
              call(CREATE_NOTE, REPORT),
              request -> {
                statusWhenTheModelWasTold[0] =
                    journal.find("run-3", "call-1").orElseThrow().status();
                return call(CREATE_NOTE, REPORT).apply(request);
              },
              answer("Checked: "));
      Agent agent = agent(model, client(proxy, quickRetries(2)));

      Result<String> result = agent.chat("Create a note titled Quarterly report", run("run-3"));

      List<ToolExecutionResultMessage> seen = model.toolResultsSeen();
      JsonNode unknown = Json.parse(seen.get(0).text());
      assertThat(seen.get(0).isError()).as("not reported as a success").isTrue();
      assertThat(unknown.path("outcome").asText()).isEqualTo("unknown");
      assertThat(unknown.has("result")).isFalse();
      assertThat(unknown.path("note").asText())
          .contains("not known whether this action took effect")
          .contains("do not carry it out again");
      assertThat(ledgerCall(result.toolExecutions().get(0)).unknown()).isTrue();
      assertThat(statusWhenTheModelWasTold[0]).isEqualTo(ActionStatus.UNKNOWN);
      assertThat(network.posts()).as("the policy's two attempts, none after").isEqualTo(2);

      JsonNode settled = Json.parse(seen.get(1).text());
      assertThat(settled.path("outcome").asText()).isEqualTo("completed");
      assertThat(settled.path("replayed").asBoolean()).isTrue();
      assertThat(network.lookups()).as("the repeat looked the same key up").isEqualTo(1);
      assertThat(node.notes()).isEqualTo(1);
      JournalEntry entry = journal.find("run-3", "call-1").orElseThrow();
      assertThat(entry.status()).isEqualTo(ActionStatus.COMPLETED);
      assertThat(ledgerCall(result.toolExecutions().get(1)).outcome().key()).isEqualTo(entry.key());
      assertThat(result.toolExecutions())
          .extracting(e -> ledgerCall(e).stepId())
          .as("the repeat of the unknown call is the same step")
          .containsExactly("call-1", "call-1");
      assertThat(journal.entries("run-3")).hasSize(1);
    }
  }

  @Test
  void replayedRunAskingForOtherArgumentsAtAStepIsRefusedWithTheConflictAndSendsNothing()
      throws Exception {
    Recording network = new Recording(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ToolLedgerClient client = client(proxy, quickRetries(3));
      agent(new ScriptedChatModel(call(CREATE_NOTE, REPORT), answer("Done: ")), client)
          .chat("Create a note titled Quarterly report", run("run-4"));
      JournalEntry before = journal.find("run-4", "call-1").orElseThrow();

      ScriptedChatModel changedMind =
          new ScriptedChatModel(call(CREATE_NOTE, "{\"title\":\"Annual report\"}"));
      Agent replay = agent(changedMind, client);

      assertThatThrownBy(() -> replay.chat("Create a note titled Quarterly report", run("run-4")))
          .isInstanceOf(ActionConflictException.class)
          .hasMessageContaining("step call-1 of workflow run-4")
          .hasMessageContaining("create-note with other parameters");
      assertThat(network.posts()).as("nothing sent for the changed call").isEqualTo(1);
      assertThat(node.notes()).isEqualTo(1);
      assertThat(node.notesTitled("Annual report")).isZero();
      JournalEntry after = journal.find("run-4", "call-1").orElseThrow();
      assertThat(after.key()).isEqualTo(before.key());
      assertThat(after.action().parameters()).isEqualTo(Json.parse(REPORT));
      assertThat(after.status()).isEqualTo(ActionStatus.COMPLETED);
    }
  }

  @Test
  void journalExplainsEveryStepOfTheRun() throws Exception {
    Recording network = new Recording(DropPolicy.next(1, DropPolicy.posts()));
    try (LossyProxy proxy = LossyProxy.start(node.uri(), network)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              call(CREATE_NOTE, "{\"title\":\"Groceries\"}"),
              call(CREATE_NOTE, "{\"title\":\"Dentist\",\"body\":\"Tuesday\"}"),
              call(CREATE_NOTE, "{\"title\":\"Groceries\"}"),
              call(CREATE_NOTE, "{\"title\":\"\"}"),
              answer("Done: "));
      Agent agent = agent(model, client(proxy, quickRetries(5)));

      Result<String> result = agent.chat("Plan my week", run("run-5"));

      List<JournalEntry> steps = journal.entries("run-5");
      assertThat(steps)
          .extracting(JournalEntry::stepId)
          .containsExactly("call-1", "call-2", "call-3", "call-4");
      assertThat(steps).extracting(e -> e.action().tool()).containsOnly(CREATE_NOTE);
      assertThat(steps)
          .extracting(e -> e.action().parameters().path("title").asText())
          .containsExactly("Groceries", "Dentist", "Groceries", "");
      assertThat(steps)
          .extracting(JournalEntry::status)
          .containsExactly(
              ActionStatus.COMPLETED,
              ActionStatus.COMPLETED,
              ActionStatus.COMPLETED,
              ActionStatus.REJECTED);
      assertThat(steps.get(0).response().orElseThrow().status()).isEqualTo(201);
      assertThat(Json.parse(steps.get(1).response().orElseThrow().body()).path("body").asText())
          .isEqualTo("Tuesday");
      assertThat(steps.get(3).problem().orElseThrow().path("type").asText())
          .endsWith("invalid-parameters");
      assertThat(steps).extracting(JournalEntry::key).doesNotHaveDuplicates();
      for (JournalEntry step : steps.subList(0, 3)) {
        assertThat(node.holdsKey(step.key().value())).as(step.stepId()).isTrue();
      }
      assertThat(node.notes())
          .as("Groceries asked for twice after it was done: two notes")
          .isEqualTo(3);

      // Every call the model made is one of these steps, named in the result and in memory.
      assertThat(result.toolExecutions())
          .extracting(e -> ledgerCall(e).stepId())
          .containsExactly("call-1", "call-2", "call-3", "call-4");
      assertThat(model.toolResultsSeen())
          .extracting(m -> m.attributes().get(LedgerToolExecutor.ATTRIBUTE_STEP))
          .containsExactly("call-1", "call-2", "call-3", "call-4");
      JsonNode rejected = Json.parse(model.toolResultsSeen().get(3).text());
      assertThat(rejected.path("outcome").asText()).isEqualTo("rejected");
      assertThat(model.toolResultsSeen().get(3).isError()).isTrue();
    }
  }

  @Test
  void sameNoteInANewRunIsANewActionWithANewKey() throws Exception {
    try (LossyProxy proxy = LossyProxy.start(node.uri(), DropPolicy.never())) {
      ToolLedgerClient client = client(proxy, quickRetries(3));
      for (String runId : List.of("monday", "tuesday")) {
        agent(new ScriptedChatModel(call(CREATE_NOTE, REPORT), answer("Done: ")), client)
            .chat("Create a note titled Quarterly report", run(runId));
      }

      assertThat(node.notesTitled("Quarterly report")).isEqualTo(2);
      assertThat(journal.find("monday", "call-1").orElseThrow().key())
          .isNotEqualTo(journal.find("tuesday", "call-1").orElseThrow().key());
    }
  }

  @Test
  void invocationWithoutARunIdEndsBeforeTheModelIsAskedOrAnythingIsSent() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel(call(CREATE_NOTE, REPORT));
    Agent agent =
        agent(
            model,
            ToolLedgerClient.builder().baseUri(node.uri()).token(token).journal(journal).build());

    assertThatThrownBy(() -> agent.chat("Create a note", new InvocationParameters()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(ToolLedgerToolProvider.class.getSimpleName() + ".RUN_ID");
    assertThat(model.requests).isEmpty();
    assertThat(journal.workflowsWithUnfinishedActions()).isEmpty();
    assertThat(node.notes()).isZero();
  }

  @Test
  void argumentsThatAreNotJsonEndTheInvocationAndNothingIsJournaled() throws Exception {
    ScriptedChatModel model = new ScriptedChatModel(call(CREATE_NOTE, "{title: Groceries"));
    Agent agent =
        agent(
            model,
            ToolLedgerClient.builder().baseUri(node.uri()).token(token).journal(journal).build());

    assertThatThrownBy(() -> agent.chat("Create a note", run("run-6")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("arguments of the call of create-note are not JSON");
    assertThat(journal.entries("run-6")).isEmpty();
    assertThat(node.notes()).isZero();
  }

  private Agent agent(ScriptedChatModel model, ToolLedgerClient client) {
    return AiServices.builder(Agent.class)
        .chatModel(model)
        .toolProvider(
            ToolLedgerToolProvider.builder()
                .client(client)
                .tools(ToolLedgerCatalog.fetch(node.uri(), token))
                .build())
        .build();
  }

  private ToolLedgerClient client(LossyProxy proxy, RetryPolicy policy) {
    return ToolLedgerClient.builder()
        .baseUri(proxy.uri())
        .token(token)
        .journal(journal)
        .retryPolicy(policy)
        .build();
  }

  private static RetryPolicy quickRetries(int attempts) {
    return RetryPolicy.builder()
        .maxAttempts(attempts)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(10))
        .build();
  }

  private static InvocationParameters run(String runId) {
    return Agent.run(runId);
  }

  private static LedgerToolCall ledgerCall(ToolExecution execution) {
    Object result = execution.resultObject();
    assertThat(result).isInstanceOf(LedgerToolCall.class);
    return (LedgerToolCall) result;
  }
}
