package dev.toolledger.springai;

import static dev.toolledger.springai.ScriptedChatModel.callTool;
import static dev.toolledger.springai.ScriptedChatModel.fail;
import static dev.toolledger.springai.ScriptedChatModel.reportToolResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.retry.support.RetryTemplate;

/**
 * Spring AI's real agent loop ({@code ChatClient} with {@code ToolCallAdvisor} and {@code
 * ToolCallingManager}) over a scripted model, calling {@code create-note} on a real node through a
 * real TCP proxy that loses responses, with a real SQLite journal.
 */
class SpringAiAgentLoopTest {
  private static final String NOTE = "{\"title\":\"Groceries\",\"body\":\"milk, eggs\"}";

  @TempDir Path dir;

  private NotesNode node;
  private ActionJournal journal;
  private String token;

  @BeforeEach
  void start() {
    node = NotesNode.start(dir);
    token = node.token("acme");
    journal = ActionJournal.sqlite(dir.resolve("agent-journal.db"));
  }

  @AfterEach
  void stop() {
    journal.close();
    node.close();
  }

  private ToolLedgerClient clientVia(LossyProxy proxy, int maxAttempts) {
    return ToolLedgerClient.builder()
        .baseUri(proxy.uri())
        .token(token)
        .journal(journal)
        .retryPolicy(
            RetryPolicy.builder()
                .maxAttempts(maxAttempts)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(10))
                .build())
        .attemptTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** A client straight to the node, for tests that are not about the network. */
  private ToolLedgerClient directClient() {
    return ToolLedgerClient.builder().baseUri(node.uri()).token(token).journal(journal).build();
  }

  private List<ToolCallback> tools(ToolLedgerClient client) {
    return ToolLedgerTools.builder(client).build().discover(node.uri(), token);
  }

  @Test
  void lostResponseIsRetriedWithTheSameKeyAndTheModelGetsTheReplayedNote() throws Exception {
    Wire wire = new Wire(DropPolicy.next(1, DropPolicy.posts()));
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      ScriptedChatModel model =
          new ScriptedChatModel(callTool("call-1", "create-note", NOTE), reportToolResult());
      Agent agent = new Agent(model, tools(clientVia(proxy, 3)));

      String answer = agent.ask("chat-1/turn-1", "Make a note of the groceries");

      assertThat(proxy.dropped()).as("the first answer was lost after the commit").isEqualTo(1);
      assertThat(wire.posts()).as("one retry, by the client").isEqualTo(2);
      assertThat(node.notes()).isEqualTo(1);

      JsonNode seen = Json.parse(model.toolResponsesSeen().get(0));
      assertThat(seen.path("outcome").asText()).isEqualTo("completed");
      assertThat(seen.path("replayed").asBoolean()).as("the retry got the recorded note").isTrue();
      assertThat(seen.path("status").asInt()).isEqualTo(201);
      assertThat(seen.path("result").path("title").asText()).isEqualTo("Groceries");
      assertThat(seen.path("result").path("id").asLong()).isEqualTo(1);
      assertThat(seen.path("note").asText()).isEqualTo(ModelAnswers.REPLAYED_NOTE);
      assertThat(answer).contains("\"replayed\":true").contains("Groceries");
      assertThat(agent.exceptionsGivenToTheProcessor()).isZero();

      JournalEntry entry = journal.entries("chat-1/turn-1").get(0);
      assertThat(node.operationKeys()).containsExactly(entry.key().value());
    }
  }

  @Test
  void hostRetryingTheWholeExchangeWithSpringRetryAsksTheLedgerNothingNew() throws Exception {
    Wire wire = new Wire(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      // The model provider fails after the tool ran; the host's RetryTemplate (spring-retry, as
      // Spring AI's RetryUtils) runs the whole exchange again, and the model, asked again, calls
      // the tool again under a new tool-call id.
      ScriptedChatModel model =
          new ScriptedChatModel(
              callTool("call-a", "create-note", NOTE),
              fail(new TransientAiException("model provider answered 503")),
              callTool(
                  "call-b", "create-note", "{\"body\":\"milk, eggs\",\"title\":\"Groceries\"}"),
              reportToolResult());
      Agent agent = new Agent(model, tools(clientVia(proxy, 3)));
      RetryTemplate hostRetry =
          RetryTemplate.builder()
              .maxAttempts(2)
              .fixedBackoff(10)
              .retryOn(TransientAiException.class)
              .build();

      String answer =
          hostRetry.execute(ctx -> agent.ask("chat-2/turn-1", "Make a note of the groceries"));

      assertThat(model.turnsLeft()).isZero();
      assertThat(wire.posts()).as("the second tool call was answered by the journal").isEqualTo(1);
      assertThat(node.notes()).isEqualTo(1);
      List<String> seen = model.toolResponsesSeen();
      assertThat(seen).hasSize(2);
      assertThat(Json.parse(seen.get(0)).path("replayed").asBoolean()).isFalse();
      assertThat(Json.parse(seen.get(1)).path("replayed").asBoolean()).isTrue();
      assertThat(Json.parse(seen.get(1)).path("result"))
          .isEqualTo(Json.parse(seen.get(0)).path("result"));
      assertThat(answer).contains("\"replayed\":true");
      assertThat(journal.entries("chat-2/turn-1"))
          .extracting(JournalEntry::stepId)
          .as("the retried exchange met the journaled step at its position")
          .containsExactly("call-1");
    }
  }

  @Test
  void journalExplainsEveryStepOfTheRun() throws Exception {
    Wire wire = new Wire(DropPolicy.next(1, DropPolicy.posts()));
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              callTool("call-1", "create-note", "{\"title\":\"Groceries\"}"),
              callTool("call-2", "create-note", "{\"title\":\"\"}"),
              callTool("call-3", "create-note", "{\"title\":\"Call the plumber\"}"),
              reportToolResult());
      Agent agent = new Agent(model, tools(clientVia(proxy, 3)));

      agent.ask("chat-3/turn-1", "Note the groceries and the plumber");

      List<JournalEntry> entries = journal.entries("chat-3/turn-1");
      assertThat(entries).hasSize(3);
      assertThat(entries).extracting(e -> e.action().tool()).containsOnly("create-note");
      assertThat(entries)
          .extracting(e -> e.action().parameters().path("title").asText())
          .containsExactly("Groceries", "", "Call the plumber");
      assertThat(entries)
          .extracting(JournalEntry::stepId)
          .containsExactly("call-1", "call-2", "call-3");
      assertThat(entries).extracting(JournalEntry::key).doesNotHaveDuplicates();
      assertThat(entries)
          .extracting(JournalEntry::status)
          .containsExactly(ActionStatus.COMPLETED, ActionStatus.REJECTED, ActionStatus.COMPLETED);
      assertThat(entries.get(0).response().orElseThrow().status()).isEqualTo(201);
      assertThat(Json.parse(entries.get(0).response().orElseThrow().body()).path("id").asLong())
          .isEqualTo(1);
      assertThat(entries.get(1).problem().orElseThrow().path("type").asText())
          .endsWith("/invalid-parameters");
      assertThat(Json.parse(entries.get(2).response().orElseThrow().body()).path("id").asLong())
          .isEqualTo(2);
      assertThat(journal.unfinished("chat-3/turn-1")).isEmpty();
      assertThat(node.operationKeys())
          .containsExactlyInAnyOrder(entries.get(0).key().value(), entries.get(2).key().value());
      assertThat(node.notes()).isEqualTo(2);

      List<String> seen = model.toolResponsesSeen();
      assertThat(Json.parse(seen.get(1)).path("outcome").asText()).isEqualTo("rejected");
      assertThat(Json.parse(seen.get(1)).path("note").asText())
          .isEqualTo(ModelAnswers.REJECTED_NOTE);
    }
  }

  @Test
  void twoDeliberateIdenticalNotesInOneRequestAreTwoNotesUnderTwoKeys() throws Exception {
    Wire wire = new Wire(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              callTool("call-1", "create-note", NOTE),
              // the same note again after the first was completed: the user wants two
              callTool(
                  "call-2", "create-note", "{\"body\":\"milk, eggs\",\"title\":\"Groceries\"}"),
              reportToolResult());
      Agent agent = new Agent(model, tools(clientVia(proxy, 3)));

      agent.ask("chat-4/turn-1", "Make two notes of the groceries, one for each of us");

      assertThat(wire.posts()).as("both sent").isEqualTo(2);
      assertThat(node.notes()).isEqualTo(2);
      List<String> seen = model.toolResponsesSeen();
      assertThat(seen)
          .extracting(r -> Json.parse(r).path("replayed").asBoolean())
          .containsExactly(false, false);
      assertThat(seen)
          .extracting(r -> Json.parse(r).path("result").path("id").asLong())
          .containsExactly(1L, 2L);
      List<JournalEntry> entries = journal.entries("chat-4/turn-1");
      assertThat(entries).extracting(JournalEntry::stepId).containsExactly("call-1", "call-2");
      assertThat(entries).extracting(JournalEntry::status).containsOnly(ActionStatus.COMPLETED);
      assertThat(node.operationKeys())
          .containsExactlyInAnyOrder(entries.get(0).key().value(), entries.get(1).key().value());
    }
  }

  @Test
  void replayedRequestAskingForOtherArgumentsAtAJournaledStepIsRefusedAndNothingIsSent()
      throws Exception {
    Wire wire = new Wire(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              callTool("call-1", "create-note", "{\"title\":\"Groceries\"}"),
              reportToolResult(),
              callTool("call-2", "create-note", "{\"title\":\"Groceries and wine\"}"),
              // told that the step is taken, it asks for the journaled call after all
              callTool("call-3", "create-note", "{\"title\":\"Groceries\"}"),
              reportToolResult());
      Agent agent = new Agent(model, tools(clientVia(proxy, 3)));

      agent.ask("job-9", "Note the groceries");
      agent.ask("job-9", "Note the groceries"); // the replay's model now asks for something else

      List<String> seen = model.toolResponsesSeen();
      JsonNode refused = Json.parse(seen.get(1));
      assertThat(refused.path("outcome").asText()).isEqualTo("rejected");
      assertThat(refused.path("problem").path("type").asText()).endsWith("/idempotency-key-reused");
      assertThat(refused.path("problem").path("detail").asText())
          .contains("already taken")
          .doesNotContain("wine");
      JsonNode afterAll = Json.parse(seen.get(2));
      assertThat(afterAll.path("replayed").asBoolean())
          .as("the refused call took no position: the journaled call-1 is still next")
          .isTrue();
      assertThat(wire.posts()).as("the changed call was never sent").isEqualTo(1);
      assertThat(node.notes()).isEqualTo(1);
      List<JournalEntry> entries = journal.entries("job-9");
      assertThat(entries).hasSize(1);
      assertThat(entries.get(0).stepId()).isEqualTo("call-1");
      assertThat(entries.get(0).action().parameters().path("title").asText())
          .isEqualTo("Groceries");
      assertThat(agent.exceptionsGivenToTheProcessor()).isZero();
    }
  }

  @Test
  void unknownOutcomeReachesTheModelAsUnknownNeverAsSuccessAndARepeatReusesTheKey()
      throws Exception {
    Wire lost = new Wire(exchange -> true); // every answer lost, lookups included
    try (LossyProxy proxy = LossyProxy.start(node.uri(), lost)) {
      ScriptedChatModel model =
          new ScriptedChatModel(
              callTool("call-1", "create-note", NOTE),
              // A model that does not listen: it asks again at once.
              callTool("call-2", "create-note", NOTE),
              reportToolResult());
      Agent agent = new Agent(model, tools(clientVia(proxy, 2)));

      String answer = agent.ask("chat-5/turn-1", "Make a note of the groceries");

      List<String> seen = model.toolResponsesSeen();
      assertThat(seen).hasSize(2);
      for (String response : seen) {
        JsonNode said = Json.parse(response);
        assertThat(said.path("outcome").asText()).isEqualTo("unknown");
        assertThat(said.has("result")).isFalse();
        assertThat(said.path("note").asText()).isEqualTo(ModelAnswers.UNKNOWN_NOTE);
        assertThat(response).doesNotContain("completed").doesNotContain("Groceries");
      }
      assertThat(answer).contains("\"outcome\":\"unknown\"");
      assertThat(agent.exceptionsGivenToTheProcessor())
          .as("no outcome went through Spring AI's exception processor")
          .isZero();
      List<JournalEntry> entries = journal.entries("chat-5/turn-1");
      assertThat(entries).hasSize(1);
      assertThat(entries.get(0).stepId()).as("the repeat was the same step").isEqualTo("call-1");
      assertThat(entries.get(0).status()).isEqualTo(ActionStatus.UNKNOWN);
      assertThat(node.operationKeys())
          .as("every attempt of both calls carried the one journal key")
          .containsExactly(entries.get(0).key().value());
      assertThat(node.notes()).isEqualTo(1);
    }

    // The network heals; the next time the model asks, the same step gets the recorded note.
    Wire healed = new Wire(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), healed)) {
      ScriptedChatModel model =
          new ScriptedChatModel(callTool("call-3", "create-note", NOTE), reportToolResult());
      new Agent(model, tools(clientVia(proxy, 2))).ask("chat-5/turn-1", "Did it work?");

      JsonNode said = Json.parse(model.toolResponsesSeen().get(0));
      assertThat(said.path("outcome").asText()).isEqualTo("completed");
      assertThat(said.path("replayed").asBoolean()).isTrue();
      assertThat(healed.posts()).as("found by a lookup, not sent again").isZero();
      assertThat(journal.entries("chat-5/turn-1").get(0).status())
          .isEqualTo(ActionStatus.COMPLETED);
      assertThat(node.notes()).isEqualTo(1);
    }
  }

  @Test
  void aRecordedBusinessRefusalReachesTheModelAsRefusedNotAsSuccess(@TempDir Path other)
      throws Exception {
    try (NotesNode full = NotesNode.start(other, NotesPlugin.serving(NotesTool.withQuota(0)));
        ActionJournal own = ActionJournal.sqlite(other.resolve("agent-journal.db"))) {
      String fullToken = full.token("acme");
      ToolLedgerClient client =
          ToolLedgerClient.builder().baseUri(full.uri()).token(fullToken).journal(own).build();
      ScriptedChatModel model =
          new ScriptedChatModel(
              callTool("call-1", "create-note", NOTE),
              callTool("call-2", "create-note", NOTE),
              reportToolResult());
      Agent agent =
          new Agent(model, ToolLedgerTools.builder(client).build().discover(full.uri(), fullToken));

      agent.ask("chat-8/turn-1", "Make a note of the groceries");

      List<String> seen = model.toolResponsesSeen();
      JsonNode first = Json.parse(seen.get(0));
      assertThat(first.path("outcome").asText()).isEqualTo("refused");
      assertThat(first.path("status").asInt()).isEqualTo(409);
      assertThat(first.path("result").path("type").asText()).endsWith("/quota-exceeded");
      assertThat(first.path("note").asText()).isEqualTo(ModelAnswers.REFUSED_NOTE);
      // A refusal is definitive: asking again is a new action, refused by the tool again.
      JsonNode second = Json.parse(seen.get(1));
      assertThat(second.path("outcome").asText()).isEqualTo("refused");
      assertThat(second.path("replayed").asBoolean()).isFalse();
      assertThat(full.notes()).isZero();
      assertThat(own.entries("chat-8/turn-1"))
          .extracting(e -> e.response().orElseThrow().status())
          .containsExactly(409, 409);
    }
  }

  @Test
  void toolDefinitionsComeFromTheServersToolList() {
    List<ToolCallback> tools =
        ToolLedgerTools.builder(directClient()).build().discover(node.uri(), token);

    assertThat(tools).hasSize(1);
    var definition = tools.get(0).getToolDefinition();
    assertThat(definition.name()).isEqualTo("create-note");
    assertThat(definition.description()).startsWith("Creates a note");
    JsonNode schema = Json.parse(definition.inputSchema());
    assertThat(schema.path("required").get(0).asText()).isEqualTo("title");
    assertThat(schema.path("properties").has("body")).isTrue();
  }

  @Test
  void discoveryWithABadTokenSaysToCheckTheToken() {
    ToolLedgerTools tools = ToolLedgerTools.builder(directClient()).build();

    assertThatThrownBy(() -> tools.discover(node.uri(), "tl_not-a-token"))
        .isInstanceOf(ToolDiscoveryException.class)
        .hasMessageContaining("401")
        .hasMessageContaining("check the token");
  }

  @Test
  void aRequestWithoutAWorkflowIdFailsBeforeAnythingIsJournaledOrSent() throws Exception {
    Wire wire = new Wire(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      ToolCallback tool = tools(clientVia(proxy, 1)).get(0);

      assertThatThrownBy(() -> tool.call(NOTE))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("ToolLedgerTools.toolContext(workflowId)");
      // A host's own map with the workflow id but without the pass that toolContext starts.
      assertThatThrownBy(
              () ->
                  tool.call(
                      NOTE,
                      new org.springframework.ai.chat.model.ToolContext(
                          Map.of(ToolLedgerTools.WORKFLOW_ID, "chat-9"))))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("ToolLedgerTools.toolContext(workflowId)");
      assertThat(wire.posts()).isZero();
      assertThat(journal.workflowsWithUnfinishedActions()).isEmpty();
    }
  }

  @Test
  void argumentsThatAreNotJsonAreRejectedToTheModelWithoutAnAction() throws Exception {
    Wire wire = new Wire(DropPolicy.never());
    try (LossyProxy proxy = LossyProxy.start(node.uri(), wire)) {
      ToolCallback tool = tools(clientVia(proxy, 1)).get(0);

      String said =
          tool.call(
              "{\"title\": ",
              new org.springframework.ai.chat.model.ToolContext(
                  ToolLedgerTools.toolContext("chat-6")));

      assertThat(Json.parse(said).path("outcome").asText()).isEqualTo("rejected");
      assertThat(Json.parse(said).path("problem").path("type").asText())
          .endsWith("/malformed-json");
      assertThat(wire.posts()).isZero();
      assertThat(journal.entries("chat-6")).isEmpty();
    }
  }

  @Test
  void optionsAreCheckedWhenBuilt() {
    ToolLedgerClient client = directClient();
    assertThatThrownBy(() -> ToolLedgerTools.builder(null).build())
        .hasMessageContaining("client is required");
    assertThatThrownBy(
            () -> ToolLedgerTools.builder(client).discoveryTimeout(Duration.ZERO).build())
        .hasMessageContaining("discoveryTimeout must be positive");
    assertThatThrownBy(() -> ToolLedgerTools.builder(client).build().tool("t", "d", "[1]"))
        .hasMessageContaining("inputSchema of t must be a JSON object");
    assertThatThrownBy(() -> ToolLedgerTools.toolContext(" "))
        .hasMessageContaining("workflowId must not be blank");
    assertThatThrownBy(
            () -> ToolLedgerTools.toolContext("w", Map.of(ToolLedgerTools.WORKFLOW_ID, "other")))
        .hasMessageContaining("must not hold ToolLedger's own entries");
  }
}
