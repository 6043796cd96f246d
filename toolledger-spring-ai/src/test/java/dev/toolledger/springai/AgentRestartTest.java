package dev.toolledger.springai;

import static dev.toolledger.springai.ScriptedChatModel.callTool;
import static dev.toolledger.springai.ScriptedChatModel.reportToolResult;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent process is stopped (SIGKILL) in the middle of its turn, and started again as a new JVM
 * with the same journal file. The user asked for two notes with the same title: the first call
 * completed; the second (a new action, since the first was completed) reached the server, which
 * committed it, and its answer never came back. The second process replays the turn; its model asks
 * for the two notes again under new tool-call ids; the turn meets the journaled steps in order, so
 * the first is answered from the journal and the second by a lookup of its key, without a request.
 */
class AgentRestartTest {
  private static final String WORKFLOW = "chat-7/turn-1";
  private static final String TITLE = "Groceries";

  @TempDir Path dir;

  @Test
  void agentKilledMidTurnGetsTheRecordedNotesWhenStartedAgainWithOneEffectPerStep()
      throws Exception {
    Path journalFile = dir.resolve("agent-journal.db");
    try (NotesNode node = NotesNode.start(dir)) {
      String token = node.token("acme");

      // First life: the first answer to a POST arrives, every later one is lost, so the agent
      // retries its second call until it is killed.
      Path firstOutput = dir.resolve("first.log");
      AtomicInteger posts = new AtomicInteger();
      DropPolicy afterTheFirst = e -> e.method().equals("POST") && posts.incrementAndGet() > 1;
      try (LossyProxy network = LossyProxy.start(node.uri(), afterTheFirst)) {
        Process first = agent(journalFile, network, token, "call_first_", firstOutput);
        try {
          waitUntilRetryingTheCommittedSecondNote(first, node, network, firstOutput);
        } finally {
          first.destroyForcibly();
          assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(first.exitValue()).as("killed, not finished").isNotZero();
        assertThat(Files.readString(firstOutput)).doesNotContain("finished");
      }
      List<OperationKey> keysAtKill;
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> entries = journal.entries(WORKFLOW);
        assertThat(entries).extracting(JournalEntry::stepId).containsExactly("call-1", "call-2");
        assertThat(entries)
            .extracting(JournalEntry::status)
            .as("the second was sent, never answered")
            .containsExactly(ActionStatus.COMPLETED, ActionStatus.PENDING);
        keysAtKill = entries.stream().map(JournalEntry::key).toList();
      }
      assertThat(node.operationKeys())
          .containsExactlyInAnyOrderElementsOf(
              keysAtKill.stream().map(OperationKey::value).toList());
      assertThat(node.notes()).isEqualTo(2);

      // Second life: a new JVM, the same journal, a healthy network.
      Path secondOutput = dir.resolve("second.log");
      Wire wire = new Wire(DropPolicy.never());
      try (LossyProxy network = LossyProxy.start(node.uri(), wire)) {
        Process second = agent(journalFile, network, token, "call_second_", secondOutput);
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("the second agent finishes").isTrue();
        String output = Files.readString(secondOutput);
        assertThat(second.exitValue()).as(output).isZero();
        assertThat(output).contains("finished");

        List<JsonNode> seen = lines(output, "tool-response ").stream().map(Json::parse).toList();
        assertThat(seen).hasSize(2);
        assertThat(seen).extracting(s -> s.path("outcome").asText()).containsOnly("completed");
        assertThat(seen).extracting(s -> s.path("replayed").asBoolean()).containsOnly(true);
        assertThat(seen)
            .extracting(s -> s.path("result").path("id").asLong())
            .as("the two recorded notes")
            .containsExactly(1L, 2L);
        assertThat(wire.posts()).as("nothing sent again").isZero();
        assertThat(wire.lookups()).as("the unanswered step's key looked up").isEqualTo(1);
      }

      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> entries = journal.entries(WORKFLOW);
        assertThat(entries)
            .extracting(JournalEntry::key)
            .as("the same keys across the restart")
            .isEqualTo(keysAtKill);
        assertThat(entries).extracting(JournalEntry::status).containsOnly(ActionStatus.COMPLETED);
        assertThat(journal.unfinished(WORKFLOW)).isEmpty();

        // A third life whose model asks for something else at the second journaled step: the
        // model is told the step is taken, and nothing is sent.
        Wire third = new Wire(DropPolicy.never());
        try (LossyProxy network = LossyProxy.start(node.uri(), third)) {
          ToolLedgerClient client =
              ToolLedgerClient.builder()
                  .baseUri(network.uri())
                  .token(token)
                  .journal(journal)
                  .build();
          ScriptedChatModel model =
              new ScriptedChatModel(
                  callTool("call_third_1", "create-note", note(TITLE)),
                  callTool("call_third_2", "create-note", note("Groceries and wine")),
                  reportToolResult());
          new Agent(model, ToolLedgerTools.builder(client).build().discover(node.uri(), token))
              .ask(WORKFLOW, "Make two notes of the groceries, one for each of us");

          JsonNode refused = Json.parse(model.toolResponsesSeen().get(1));
          assertThat(refused.path("outcome").asText()).isEqualTo("rejected");
          assertThat(refused.path("problem").path("type").asText())
              .endsWith("/idempotency-key-reused");
          assertThat(third.posts()).as("nothing sent for the changed call").isZero();
        }
        assertThat(journal.entries(WORKFLOW))
            .extracting(JournalEntry::key)
            .as("the journal unchanged")
            .isEqualTo(keysAtKill);
      }
      assertThat(node.notes()).isEqualTo(2);
    }
  }

  private static String note(String title) {
    return "{\"title\":\"" + title + "\",\"body\":\"milk, eggs\"}";
  }

  private static Process agent(
      Path journalFile, LossyProxy network, String token, String toolCallPrefix, Path output)
      throws Exception {
    ProcessBuilder agent =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // A short-lived JVM: the C1 compiler alone starts it faster on a busy machine.
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                SpringAiAgentMain.class.getName(),
                journalFile.toString(),
                network.uri().toString(),
                WORKFLOW,
                toolCallPrefix,
                TITLE,
                TITLE)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    agent.environment().put("TOOLLEDGER_TOKEN", token);
    return agent.start();
  }

  /** Waits (bounded) until the second note is committed and the agent has lost two answers. */
  private static void waitUntilRetryingTheCommittedSecondNote(
      Process process, NotesNode node, LossyProxy network, Path output) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < giveUp) {
      if (!process.isAlive()) {
        throw new AssertionError("the agent exited early:\n" + Files.readString(output));
      }
      if (network.dropped() >= 2 && node.notes() == 2) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the agent never retried its call:\n" + Files.readString(output));
  }

  private static List<String> lines(String output, String prefix) {
    return output
        .lines()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .toList();
  }
}
