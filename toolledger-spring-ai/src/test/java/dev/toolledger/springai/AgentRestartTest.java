package dev.toolledger.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.core.json.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent process is stopped (SIGKILL) after its tool call reached the server and before the
 * answer reached it, and started again as a new JVM with the same journal file. The second process
 * replays the turn; its model asks for the same note under a new tool-call id; the call is the same
 * journal step, and so the same key, and completes from the server's record without a second
 * request.
 */
class AgentRestartTest {
  private static final String WORKFLOW = "chat-7/turn-1";

  @TempDir Path dir;

  @Test
  void agentKilledAfterTheCallGetsTheRecordedNoteWhenStartedAgainWithTheSameJournal()
      throws Exception {
    Path journalFile = dir.resolve("agent-journal.db");
    try (NotesNode node = NotesNode.start(dir)) {
      String token = node.token("acme");

      // First life: every answer to a POST is lost, so the agent retries until it is killed.
      Path firstOutput = dir.resolve("first.log");
      try (LossyProxy network = LossyProxy.start(node.uri(), DropPolicy.posts()::test)) {
        Process first = agent(journalFile, network, token, "call_first", firstOutput);
        try {
          waitUntilRetryingACommittedCall(first, node, network, firstOutput);
        } finally {
          first.destroyForcibly();
          assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(first.exitValue()).as("killed, not finished").isNotZero();
        assertThat(Files.readString(firstOutput)).doesNotContain("finished");
      }
      JournalEntry atKill;
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> entries = journal.entries(WORKFLOW);
        assertThat(entries).hasSize(1);
        atKill = entries.get(0);
      }
      assertThat(atKill.status()).as("sent, never answered").isEqualTo(ActionStatus.PENDING);
      assertThat(node.operationKeys()).containsExactly(atKill.key().value());
      assertThat(node.notes()).isEqualTo(1);

      // Second life: a new JVM, the same journal, a healthy network.
      Path secondOutput = dir.resolve("second.log");
      Wire wire = new Wire(DropPolicy.never());
      try (LossyProxy network = LossyProxy.start(node.uri(), wire)) {
        Process second = agent(journalFile, network, token, "call_second", secondOutput);
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("the second agent finishes").isTrue();
        String output = Files.readString(secondOutput);
        assertThat(second.exitValue()).as(output).isZero();
        assertThat(output).contains("finished");

        JsonNode seen = Json.parse(line(output, "tool-response "));
        assertThat(seen.path("outcome").asText()).isEqualTo("completed");
        assertThat(seen.path("replayed").asBoolean()).isTrue();
        assertThat(seen.path("result").path("id").asLong()).isEqualTo(1);
        assertThat(seen.path("result").path("title").asText()).isEqualTo("Groceries");
        assertThat(line(output, "answer ")).contains("\"replayed\":true");
        assertThat(wire.posts()).as("completed from a lookup, not sent again").isZero();
        assertThat(wire.gets()).as("the lookup and the tool list").isGreaterThanOrEqualTo(1);
      }

      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> entries = journal.entries(WORKFLOW);
        assertThat(entries).hasSize(1);
        JournalEntry after = entries.get(0);
        assertThat(after.key()).isEqualTo(atKill.key());
        assertThat(after.stepId()).isEqualTo(atKill.stepId());
        assertThat(after.status()).isEqualTo(ActionStatus.COMPLETED);
        assertThat(after.response().orElseThrow().status()).isEqualTo(201);
        assertThat(journal.unfinished(WORKFLOW)).isEmpty();
      }
      assertThat(node.notes()).isEqualTo(1);
      assertThat(node.operationKeys()).containsExactly(atKill.key().value());
    }
  }

  private static Process agent(
      Path journalFile, LossyProxy network, String token, String toolCallId, Path output)
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
                toolCallId)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    agent.environment().put("TOOLLEDGER_TOKEN", token);
    return agent.start();
  }

  /** Waits (bounded) until the note is committed and the agent has lost two answers to it. */
  private static void waitUntilRetryingACommittedCall(
      Process process, NotesNode node, LossyProxy network, Path output) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < giveUp) {
      if (!process.isAlive()) {
        throw new AssertionError("the agent exited early:\n" + Files.readString(output));
      }
      if (network.dropped() >= 2 && node.notes() == 1) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the agent never retried its call:\n" + Files.readString(output));
  }

  private static String line(String output, String prefix) {
    return output
        .lines()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line " + prefix + "in\n" + output));
  }
}
