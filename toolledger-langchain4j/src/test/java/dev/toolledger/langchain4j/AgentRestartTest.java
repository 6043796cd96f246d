package dev.toolledger.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.json.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent process stopped after its tool call and started again with the same journal: two real
 * JVMs, each running a LangChain4j AI Service ({@link AgentProcessMain}), against one real node.
 *
 * <p>The first agent's call reaches the server, which commits the note, and every answer is lost on
 * the way back, so the agent is still retrying when it is killed with SIGKILL (no shutdown hook, no
 * journal close). The second agent replays the run from the user's request: the model is asked
 * again, mints a new tool-call id, and asks for the same note; the step gets the key the first
 * process journaled, the client looks it up, and the model is given the recorded note.
 */
class AgentRestartTest {
  private static final String RUN = "request-7";

  @TempDir Path dir;

  @Test
  void agentKilledAfterTheCallIsRestartedOnTheSameJournalAndGetsTheReplayedNote() throws Exception {
    Path journalFile = dir.resolve("agent-journal.db");
    try (NotesNode node = NotesNode.start(dir.resolve("server"))) {
      String token = node.token("acme");

      OperationKey keyAtKill;
      Recording lost = new Recording(DropPolicy.posts()::test);
      try (LossyProxy network = LossyProxy.start(node.uri(), lost)) {
        Path output = dir.resolve("first-agent.log");
        Process first = agent(journalFile, network.uri(), token, output);
        try {
          awaitCommittedAndRetrying(first, node, network, output);
        } finally {
          first.destroyForcibly(); // SIGKILL
          assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(first.exitValue()).as("killed, not finished").isNotZero();
        assertThat(Files.readString(output)).doesNotContain("answer:");
      }
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        JournalEntry atKill = journal.find(RUN, "call-1").orElseThrow();
        assertThat(atKill.status()).as("sent, never answered").isEqualTo(ActionStatus.PENDING);
        keyAtKill = atKill.key();
      }
      assertThat(node.holdsKey(keyAtKill.value())).as("the server committed it").isTrue();
      assertThat(node.notes()).isEqualTo(1);

      Recording afterRestart = new Recording(DropPolicy.never());
      Path output = dir.resolve("second-agent.log");
      try (LossyProxy network = LossyProxy.start(node.uri(), afterRestart)) {
        Process second = agent(journalFile, network.uri(), token, output);
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("the second agent finishes").isTrue();
        assertThat(second.exitValue()).as(Files.readString(output)).isZero();
      }

      String log = Files.readString(output);
      String given = line(log, "model was given: ").orElseThrow();
      assertThat(Json.parse(given).path("outcome").asText()).isEqualTo("completed");
      assertThat(Json.parse(given).path("replayed").asBoolean()).isTrue();
      assertThat(Json.parse(given).path("result").path("title").asText())
          .isEqualTo(AgentProcessMain.TITLE);
      assertThat(line(log, "tool call: ").orElseThrow())
          .contains("stepId=call-1")
          .contains("replayed=true");
      assertThat(log).contains("answer: The note is there:");

      assertThat(afterRestart.posts()).as("nothing sent again").isZero();
      assertThat(afterRestart.lookups()).as("the journaled key looked up").isEqualTo(1);
      assertThat(node.notes()).as("exactly one effect").isEqualTo(1);
      assertThat(node.operations()).isEqualTo(1);
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> steps = journal.entries(RUN);
        assertThat(steps).hasSize(1);
        assertThat(steps.get(0).key()).as("the same key across the restart").isEqualTo(keyAtKill);
        assertThat(steps.get(0).status()).isEqualTo(ActionStatus.COMPLETED);
        assertThat(Json.parse(steps.get(0).response().orElseThrow().body()).path("title").asText())
            .isEqualTo(AgentProcessMain.TITLE);
      }
    }
  }

  private static Process agent(Path journal, URI server, String token, Path output)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", // a short-lived process: start fast rather than peak
                "-cp",
                System.getProperty("java.class.path"),
                AgentProcessMain.class.getName(),
                journal.toString(),
                server.toString(),
                RUN)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().put("TOOLLEDGER_TOKEN", token);
    return builder.start();
  }

  /** Waits (bounded) until the note is committed and the agent has lost two answers. */
  private static void awaitCommittedAndRetrying(
      Process agent, NotesNode node, LossyProxy network, Path output) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < giveUp) {
      if (!agent.isAlive()) {
        throw new AssertionError("the first agent exited early:\n" + Files.readString(output));
      }
      if (network.dropped() >= 2 && node.notes() == 1) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the first agent never got stuck:\n" + Files.readString(output));
  }

  private static Optional<String> line(String log, String prefix) {
    return log.lines()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .findFirst();
  }
}
