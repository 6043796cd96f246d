package dev.toolledger.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent process killed with SIGKILL in the middle of a workflow, and a new client on the same
 * journal file resuming it: every action finishes under the key it was first given, and the server
 * holds exactly one note per action.
 *
 * <p>The kill is made to land mid-workflow deterministically: the agent journals its 40-step plan,
 * then executes it through a proxy that forwards the first 12 POST responses and drops every later
 * one. The agent gets stuck retrying step 12 (which the server has committed) and is killed once
 * the journal shows 12 completed steps and the proxy has dropped a few retries. At the kill the
 * journal holds all three kinds of actions resume must handle: completed, committed on the server
 * but unanswered in the journal, and planned but never sent.
 */
class KilledClientResumeTest {
  private static final String WORKFLOW = "wf-killed";
  private static final int STEPS = 40;
  private static final int ANSWERED = 12;

  @TempDir Path dir;

  @Test
  void agentKilledMidWorkflowIsResumedWithItsOriginalKeysAndNoDuplicates() throws Exception {
    Path journalFile = dir.resolve("agent-journal.db");
    Path agentOutput = dir.resolve("agent.log");
    try (TestServer server = TestServer.start(dir)) {
      String token = server.token("acme");
      AtomicInteger posts = new AtomicInteger();
      RecordingPolicy afterTwelve =
          new RecordingPolicy(
              exchange -> exchange.method().equals("POST") && posts.incrementAndGet() > ANSWERED);

      Map<String, OperationKey> keysAtKill;
      try (LossyProxy network = LossyProxy.start(server.uri(), afterTwelve)) {
        ProcessBuilder agent =
            new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    JournalingAgentMain.class.getName(),
                    journalFile.toString(),
                    network.uri().toString(),
                    WORKFLOW,
                    Integer.toString(STEPS))
                .redirectErrorStream(true)
                .redirectOutput(agentOutput.toFile());
        agent.environment().put("TOOLLEDGER_TOKEN", token);
        Process process = agent.start();
        try {
          waitUntilStuckOnStep(process, journalFile, network, agentOutput);
          assertThat(process.isAlive()).as("the agent is still mid-workflow").isTrue();
        } finally {
          process.destroyForcibly(); // SIGKILL: no shutdown hooks, no journal close
          assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(process.exitValue()).as("killed, not finished").isNotZero();
        assertThat(Files.readString(agentOutput)).doesNotContain("workflow finished");
      }

      RecordingPolicy resumeTraffic = RecordingPolicy.forwardAll();
      try (ActionJournal journal = ActionJournal.sqlite(journalFile);
          LossyProxy network = LossyProxy.start(server.uri(), resumeTraffic)) {
        List<JournalEntry> atKill = journal.entries(WORKFLOW);
        keysAtKill =
            atKill.stream()
                .collect(
                    Collectors.toMap(
                        JournalEntry::stepId, JournalEntry::key, (a, b) -> a, LinkedHashMap::new));
        assertThat(atKill).hasSize(STEPS);
        assertThat(atKill.subList(0, ANSWERED)).allMatch(e -> e.status() == ActionStatus.COMPLETED);
        assertThat(atKill.subList(ANSWERED, STEPS))
            .allMatch(e -> e.status() == ActionStatus.PENDING);
        assertThat(server.holdsKey(keysAtKill.get("step-" + ANSWERED).value()))
            .as("the stuck step was committed on the server before the kill")
            .isTrue();
        assertThat(server.notes()).isEqualTo(ANSWERED + 1);

        ToolLedgerClient restarted =
            ToolLedgerClient.builder()
                .baseUri(network.uri())
                .token(token)
                .journal(journal)
                .retryPolicy(
                    RetryPolicy.builder()
                        .maxAttempts(3)
                        .backoff(Duration.ofMillis(1), Duration.ofMillis(10))
                        .build())
                .build();
        assertThat(journal.workflowsWithUnfinishedActions()).containsExactly(WORKFLOW);

        List<ResumedAction> resumed = restarted.resume(WORKFLOW);

        assertThat(resumed).hasSize(STEPS - ANSWERED);
        for (ResumedAction r : resumed) {
          assertThat(r.key())
              .as(r.action().stepId())
              .isEqualTo(keysAtKill.get(r.action().stepId()));
          assertThat(r.outcome()).as(r.action().stepId()).isInstanceOf(Outcome.Completed.class);
          assertThat(r.outcome().key()).isEqualTo(r.key());
        }
        Outcome.Completed stuck = (Outcome.Completed) resumed.get(0).outcome();
        assertThat(resumed.get(0).action().stepId()).isEqualTo("step-" + ANSWERED);
        assertThat(stuck.replayed()).as("completed from the lookup").isTrue();
        assertThat(resumed.subList(1, resumed.size()))
            .allMatch(r -> !((Outcome.Completed) r.outcome()).replayed());
        assertThat(resumeTraffic.posts())
            .as("one POST per never-sent step, none for the committed one")
            .isEqualTo(STEPS - ANSWERED - 1);

        List<JournalEntry> after = journal.entries(WORKFLOW);
        assertThat(after).allMatch(e -> e.status() == ActionStatus.COMPLETED);
        assertThat(after).allMatch(e -> e.key().equals(keysAtKill.get(e.stepId())));
        assertThat(journal.unfinished(WORKFLOW)).isEmpty();
        assertThat(server.notes()).isEqualTo(STEPS);
        assertThat(server.count("SELECT COUNT(DISTINCT title) FROM notes")).isEqualTo(STEPS);
        assertThat(server.operations()).isEqualTo(STEPS);
        for (OperationKey key : keysAtKill.values()) {
          assertThat(server.holdsKey(key.value())).isTrue();
        }
      }
    }
  }

  /** Waits (bounded) until the agent has 12 answered steps and is retrying the 13th. */
  private static void waitUntilStuckOnStep(
      Process process, Path journalFile, LossyProxy network, Path agentOutput) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < giveUp) {
      if (!process.isAlive()) {
        throw new AssertionError("the agent exited early:\n" + Files.readString(agentOutput));
      }
      if (network.dropped() >= 3 && Files.exists(journalFile)) {
        try (ActionJournal peek = ActionJournal.sqlite(journalFile)) {
          long completed =
              peek.entries(WORKFLOW).stream()
                  .filter(e -> e.status() == ActionStatus.COMPLETED)
                  .count();
          if (completed == ANSWERED) {
            return;
          }
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError(
        "the agent never got stuck on step 12:\n" + Files.readString(agentOutput));
  }
}
