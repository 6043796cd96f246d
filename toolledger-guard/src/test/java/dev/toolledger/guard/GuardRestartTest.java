package dev.toolledger.guard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard killed with SIGKILL after the node committed, started again on the same journal: the
 * host's identical call is the same action, answered as replayed, with one effect.
 */
class GuardRestartTest {
  private static final JsonNode NOTE = Json.parse("{\"title\":\"rent\",\"body\":\"due friday\"}");
  // The same arguments in another member order: identical under RFC 8785.
  private static final JsonNode SAME_NOTE =
      Json.parse("{\"body\":\"due friday\",\"title\":\"rent\"}");

  @TempDir Path dir;

  @Test
  void guardKilledAfterTheCommitIsRestartedOnTheSameJournalAndTheIdenticalCallIsReplayed()
      throws Exception {
    Path journalFile = dir.resolve("guard.db");
    try (NotesNode node = NotesNode.start(dir)) {
      String token = node.token("acme");

      Wire lossy = Wire.dropAll("create-note");
      try (LossyProxy link = LossyProxy.start(node.uri(), lossy)) {
        GuardProcess first =
            GuardProcess.start(
                link.uri().resolve("/mcp"), token, journalFile, dir.resolve("first.log"), null);
        try {
          first.initialize();
          first.callAsync("create-note", NOTE); // never answered: killed while retrying
          long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (!(node.notes() == 1 && link.dropped() >= 1) && System.nanoTime() < giveUp) {
            Thread.sleep(20);
          }
          assertThat(node.notes()).as("the node committed").isEqualTo(1);
        } finally {
          first.kill();
        }
      }
      String keyAtKill;
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> steps = journal.entries(GuardConfig.DEFAULT_SESSION);
        assertThat(steps).hasSize(1);
        assertThat(steps.get(0).status())
            .as("sent, never answered")
            .isEqualTo(ActionStatus.PENDING);
        keyAtKill = steps.get(0).key().value();
      }
      assertThat(lossy.keys("create-note")).isNotEmpty().allMatch(keyAtKill::equals);
      assertThat(node.holdsKey(keyAtKill)).isTrue();

      Wire after = Wire.lossless();
      try (LossyProxy link = LossyProxy.start(node.uri(), after);
          GuardProcess second =
              GuardProcess.start(
                  link.uri().resolve("/mcp"),
                  token,
                  journalFile,
                  dir.resolve("second.log"),
                  null)) {
        second.initialize();
        JsonNode pending = second.call("pending-actions", Json.object());
        JsonNode listed = pending.path("structuredContent").path("actions");
        assertThat(listed.size()).isEqualTo(1);
        assertThat(listed.get(0).path("tool").asText()).isEqualTo("create-note");
        assertThat(listed.get(0).path("claimable").asBoolean()).isTrue();
        assertThat(listed.get(0).toString()).doesNotContain(keyAtKill);

        JsonNode again = second.call("create-note", SAME_NOTE);

        assertThat(again.path("isError").asBoolean()).isFalse();
        assertThat(again.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("replayed");
        assertThat(again.path("_meta").path("dev.toolledger/replayed").asBoolean()).isTrue();
        assertThat(again.path("_meta").path("dev.toolledger/action").asText())
            .isEqualTo(listed.get(0).path("action").asText());
        assertThat(again.path("structuredContent").path("title").asText()).isEqualTo("rent");
        assertThat(again.path("content").get(0).path("text").asText()).startsWith("Replayed:");
        assertThat(after.calls("create-note")).as("looked up, not sent again").isEmpty();
        assertThat(node.notes()).as("exactly one effect").isEqualTo(1);

        JsonNode none = second.call("pending-actions", Json.object());
        assertThat(none.path("structuredContent").path("actions").size()).isZero();
      }
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> steps = journal.entries(GuardConfig.DEFAULT_SESSION);
        assertThat(steps).hasSize(1);
        assertThat(steps.get(0).key().value())
            .as("one key across the restart")
            .isEqualTo(keyAtKill);
        assertThat(steps.get(0).status()).isEqualTo(ActionStatus.COMPLETED);
      }
      assertThat(node.operations()).isEqualTo(1);
    }
  }
}
