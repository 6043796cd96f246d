package dev.toolledger.langchain4j;

import static dev.toolledger.langchain4j.ScriptedChatModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.service.AiServices;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent process stopped in the middle of its run and started again with the same journal: two
 * real JVMs, each running a LangChain4j AI Service ({@link AgentProcessMain}), against one real
 * node.
 *
 * <p>The user asks for two notes with the same title. The first agent's first call completes; its
 * second call (a new action: the first was completed) reaches the server, which commits the second
 * note, and every answer is lost on the way back, so the agent is still retrying when it is killed
 * with SIGKILL (no shutdown hook, no journal close). The second agent replays the run from the
 * user's request: the model is asked again, mints new tool-call ids, and asks for the two notes
 * again; the run meets its journaled steps in order, so the first is answered from the journal and
 * the second by a lookup of its key, and the model is given both recorded notes.
 */
class AgentRestartTest {
  private static final String RUN = "request-7";
  private static final String TITLE = AgentProcessMain.TITLE;

  @TempDir Path dir;

  @Test
  void agentKilledMidRunIsRestartedOnTheSameJournalWithOneEffectPerStepAndTheRecordedResults()
      throws Exception {
    Path journalFile = dir.resolve("agent-journal.db");
    try (NotesNode node = NotesNode.start(dir.resolve("server"))) {
      String token = node.token("acme");

      AtomicInteger posts = new AtomicInteger();
      // The first note's answer arrives; every later answer to a POST is lost.
      Recording lost = new Recording(e -> e.method().equals("POST") && posts.incrementAndGet() > 1);
      try (LossyProxy network = LossyProxy.start(node.uri(), lost)) {
        Path output = dir.resolve("first-agent.log");
        Process first = agent(journalFile, network.uri(), token, output);
        try {
          awaitSecondNoteCommittedAndRetrying(first, node, network, output);
        } finally {
          first.destroyForcibly(); // SIGKILL
          assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(first.exitValue()).as("killed, not finished").isNotZero();
        assertThat(Files.readString(output)).doesNotContain("answer:");
      }
      List<OperationKey> keysAtKill;
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> steps = journal.entries(RUN);
        assertThat(steps).extracting(JournalEntry::stepId).containsExactly("call-1", "call-2");
        assertThat(steps)
            .extracting(JournalEntry::status)
            .as("the second was sent, never answered")
            .containsExactly(ActionStatus.COMPLETED, ActionStatus.PENDING);
        keysAtKill = steps.stream().map(JournalEntry::key).toList();
      }
      for (OperationKey key : keysAtKill) {
        assertThat(node.holdsKey(key.value())).as("the server committed it").isTrue();
      }
      assertThat(node.notesTitled(TITLE)).isEqualTo(2);

      Recording afterRestart = new Recording(DropPolicy.never());
      Path output = dir.resolve("second-agent.log");
      try (LossyProxy network = LossyProxy.start(node.uri(), afterRestart)) {
        Process second = agent(journalFile, network.uri(), token, output);
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("the second agent finishes").isTrue();
        assertThat(second.exitValue()).as(Files.readString(output)).isZero();
      }

      String log = Files.readString(output);
      List<JsonNode> given = lines(log, "model was given: ").stream().map(Json::parse).toList();
      assertThat(given).hasSize(2);
      assertThat(given).extracting(g -> g.path("outcome").asText()).containsOnly("completed");
      assertThat(given).extracting(g -> g.path("replayed").asBoolean()).containsOnly(true);
      assertThat(given)
          .extracting(g -> g.path("result").path("title").asText())
          .containsOnly(TITLE);
      assertThat(given)
          .extracting(g -> g.path("result").path("id").asLong())
          .as("the two recorded notes")
          .containsExactly(1L, 2L);
      assertThat(lines(log, "tool call: "))
          .satisfiesExactly(
              first -> assertThat(first).contains("stepId=call-1"),
              second -> assertThat(second).contains("stepId=call-2"));
      assertThat(log).contains("answer: The notes are there.");

      assertThat(afterRestart.posts()).as("nothing sent again").isZero();
      assertThat(afterRestart.lookups()).as("the unanswered step's key looked up").isEqualTo(1);
      assertThat(node.notesTitled(TITLE)).as("one effect per step").isEqualTo(2);
      assertThat(node.operations()).isEqualTo(2);
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> steps = journal.entries(RUN);
        assertThat(steps)
            .extracting(JournalEntry::key)
            .as("the same keys across the restart")
            .isEqualTo(keysAtKill);
        assertThat(steps).extracting(JournalEntry::status).containsOnly(ActionStatus.COMPLETED);

        // A third life whose model asks for something else at the second journaled step: refused
        // by the journal, nothing sent.
        Recording third = new Recording(DropPolicy.never());
        try (LossyProxy network = LossyProxy.start(node.uri(), third)) {
          ToolLedgerClient client =
              ToolLedgerClient.builder()
                  .baseUri(network.uri())
                  .token(token)
                  .journal(journal)
                  .build();
          Agent changed =
              AiServices.builder(Agent.class)
                  .chatModel(
                      new ScriptedChatModel(
                          call("create-note", "{\"title\":\"" + TITLE + "\"}"),
                          call("create-note", "{\"title\":\"Board minutes (draft)\"}")))
                  .toolProvider(
                      ToolLedgerToolProvider.builder()
                          .client(client)
                          .tools(ToolLedgerCatalog.fetch(node.uri(), token))
                          .build())
                  .build();

          assertThatThrownBy(() -> changed.chat("Create two notes titled " + TITLE, Agent.run(RUN)))
              .isInstanceOf(ActionConflictException.class)
              .hasMessageContaining("step call-2 of workflow " + RUN);
          assertThat(third.posts()).as("nothing sent for the changed call").isZero();
        }
        assertThat(journal.entries(RUN))
            .extracting(JournalEntry::key)
            .as("the journal unchanged")
            .isEqualTo(keysAtKill);
      }
      assertThat(node.notes()).isEqualTo(2);
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
                RUN,
                TITLE,
                TITLE)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().put("TOOLLEDGER_TOKEN", token);
    return builder.start();
  }

  /** Waits (bounded) until the second note is committed and the agent has lost two answers. */
  private static void awaitSecondNoteCommittedAndRetrying(
      Process agent, NotesNode node, LossyProxy network, Path output) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < giveUp) {
      if (!agent.isAlive()) {
        throw new AssertionError("the first agent exited early:\n" + Files.readString(output));
      }
      if (network.dropped() >= 2 && node.notes() == 2) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the first agent never got stuck:\n" + Files.readString(output));
  }

  private static List<String> lines(String log, String prefix) {
    return log.lines()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .toList();
  }
}
