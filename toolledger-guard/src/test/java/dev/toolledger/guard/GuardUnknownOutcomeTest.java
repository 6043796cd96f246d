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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every answer lost until the call's deadline: the host hears "unknown", not a failure; the model
 * checks with get-operation by action id, and once it has the outcome an identical call is a new
 * action.
 */
class GuardUnknownOutcomeTest {
  private static final JsonNode NOTE = Json.parse("{\"title\":\"call mum\"}");

  @TempDir Path dir;

  @Test
  void lostAnswersEndUnknownNotAsAFailureAndGetOperationTellsWhatHappened() throws Exception {
    Path journalFile = dir.resolve("guard.db");
    try (NotesNode node = NotesNode.start(dir)) {
      Wire wire = Wire.dropAll("create-note");
      try (LossyProxy link = LossyProxy.start(node.uri(), wire);
          GuardProcess guard =
              GuardProcess.start(
                  link.uri().resolve("/mcp"),
                  node.token("acme"),
                  journalFile,
                  dir.resolve("guard.log"),
                  1_500L)) {
        guard.initialize();

        JsonNode unknown = guard.call("create-note", NOTE);

        assertThat(unknown.path("isError").asBoolean()).as("not presented as a failure").isFalse();
        assertThat(unknown.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("unknown");
        String words = unknown.path("content").get(0).path("text").asText();
        assertThat(words).startsWith("Outcome unknown:").contains("MAY HAVE HAPPENED");
        String action = unknown.path("_meta").path("dev.toolledger/action").asText();
        assertThat(words).contains("{\"action\": \"" + action + "\"}");
        assertThat(node.notes()).isEqualTo(1);
        assertThat(wire.keys("create-note"))
            .hasSizeGreaterThan(1)
            .allMatch(wire.keys("create-note").get(0)::equals);

        JsonNode pending = guard.call("pending-actions", Json.object());
        assertThat(pending.path("structuredContent").path("actions").get(0).path("status").asText())
            .isEqualTo("unknown");

        JsonNode checked = guard.call("get-operation", Json.object().put("action", action));

        assertThat(checked.path("isError").asBoolean()).isFalse();
        assertThat(checked.path("structuredContent").path("state").asText()).isEqualTo("COMPLETED");
        assertThat(
                checked
                    .path("structuredContent")
                    .path("response")
                    .path("body")
                    .path("title")
                    .asText())
            .isEqualTo("call mum");
        assertThat(checked.path("content").get(0).path("text").asText()).startsWith("It happened:");
        assertThat(checked.toString()).doesNotContain(wire.keys("create-note").get(0));
      }
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> steps = journal.entries(GuardConfig.DEFAULT_SESSION);
        assertThat(steps).hasSize(1);
        assertThat(steps.get(0).status())
            .as("the looked-up outcome is kept: the model has it now")
            .isEqualTo(ActionStatus.COMPLETED);
      }
      assertThat(node.notes()).isEqualTo(1);
    }
  }
}
