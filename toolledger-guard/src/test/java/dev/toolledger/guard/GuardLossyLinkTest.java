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
 * A host that sends no key, the guard in a JVM of its own, and a link to a real node that loses the
 * node's answer after the commit.
 */
class GuardLossyLinkTest {
  @TempDir Path dir;

  @Test
  void lostAnswerIsOneEffectAnsweredExecutedAndADeliberateRepeatMakesASecondNote()
      throws Exception {
    Path journalFile = dir.resolve("guard.db");
    try (NotesNode node = NotesNode.start(dir)) {
      Wire wire = Wire.dropFirst(1, "create-note");
      try (LossyProxy link = LossyProxy.start(node.uri(), wire);
          GuardProcess guard =
              GuardProcess.start(
                  link.uri().resolve("/mcp"),
                  node.token("acme"),
                  journalFile,
                  dir.resolve("guard.log"),
                  null)) {
        guard.initialize();
        List<String> tools = names(guard.listTools());
        assertThat(tools)
            .contains("create-note", "pending-actions", "get-operation")
            .doesNotHaveDuplicates();

        JsonNode createNote = tool(guard.listTools(), "create-note");
        assertThat(createNote.path("inputSchema").path("properties").has("title")).isTrue();
        assertThat(createNote.path("annotations").path("idempotentHint").asBoolean())
            .as("through the guard a repeat after an answer is a new action")
            .isFalse();
        assertThat(createNote.has("outputSchema")).isFalse();
        assertThat(createNote.path("_meta").has("dev.toolledger/operation-key")).isFalse();

        JsonNode first = guard.call("create-note", Json.parse("{\"title\":\"groceries\"}"));

        assertThat(first.path("isError").asBoolean()).isFalse();
        assertThat(first.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("executed");
        assertThat(first.path("_meta").path("dev.toolledger/replayed").asBoolean()).isFalse();
        assertThat(first.path("structuredContent").path("title").asText()).isEqualTo("groceries");
        assertThat(first.path("content").get(0).path("text").asText()).startsWith("Executed:");
        assertThat(link.dropped()).as("the node's first answer was lost").isEqualTo(1);
        assertThat(node.notesTitled("groceries")).as("one effect").isEqualTo(1);
        List<String> firstKeys = wire.keys("create-note");
        assertThat(firstKeys).as("the retry carried the same key").hasSize(2);
        assertThat(firstKeys.get(1)).isEqualTo(firstKeys.get(0));

        JsonNode second = guard.call("create-note", Json.parse("{\"title\":\"groceries\"}"));

        assertThat(second.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("executed");
        assertThat(second.path("_meta").path("dev.toolledger/action").asText())
            .isNotEqualTo(first.path("_meta").path("dev.toolledger/action").asText());
        assertThat(node.notesTitled("groceries")).as("a deliberate second note").isEqualTo(2);
        assertThat(wire.keys("create-note")).hasSize(3);
        assertThat(wire.keys("create-note").get(2)).isNotEqualTo(firstKeys.get(0));

        JsonNode refused = guard.call("create-note", Json.parse("{\"body\":\"no title\"}"));

        assertThat(refused.path("isError").asBoolean()).isTrue();
        assertThat(refused.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("refused");
        assertThat(refused.path("_meta").path("dev.toolledger/problem-type").asText())
            .endsWith("/invalid-parameters");
        assertThat(refused.path("content").get(0).path("text").asText())
            .startsWith("Refused and not executed:")
            .contains("safe to change the arguments");
        assertThat(node.notes()).as("nothing happened").isEqualTo(2);

        JsonNode pending = guard.call("pending-actions", Json.object());
        assertThat(pending.path("structuredContent").path("actions").size()).isZero();
      }

      // The journal explains every step: two actions, two keys, both answered, both on the node.
      try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        List<JournalEntry> all = journal.entries(GuardConfig.DEFAULT_SESSION);
        assertThat(all).hasSize(3);
        assertThat(all.get(2).status()).isEqualTo(ActionStatus.REJECTED);
        assertThat(all.get(2).problem().orElseThrow().path("type").asText())
            .endsWith("/invalid-parameters");
        List<JournalEntry> steps = all.subList(0, 2);
        assertThat(steps).allSatisfy(e -> assertThat(e.status()).isEqualTo(ActionStatus.COMPLETED));
        assertThat(steps).allSatisfy(e -> assertThat(e.action().tool()).isEqualTo("create-note"));
        assertThat(steps.get(0).key()).isNotEqualTo(steps.get(1).key());
        assertThat(steps.get(0).key().value()).isEqualTo(wire.keys("create-note").get(0));
        assertThat(steps.get(1).key().value()).isEqualTo(wire.keys("create-note").get(2));
        for (JournalEntry step : steps) {
          assertThat(node.holdsKey(step.key().value())).isTrue();
          assertThat(step.stepId()).startsWith("act-");
          assertThat(Json.parse(step.response().orElseThrow().body()).path("title").asText())
              .isEqualTo("groceries");
        }
      }
      assertThat(node.operations()).isEqualTo(2);
    }
  }

  static JsonNode tool(JsonNode listTools, String name) {
    for (JsonNode tool : listTools.path("tools")) {
      if (tool.path("name").asText().equals(name)) {
        return tool;
      }
    }
    throw new AssertionError("no tool " + name);
  }

  static List<String> names(JsonNode listTools) {
    return java.util.stream.StreamSupport.stream(listTools.path("tools").spliterator(), false)
        .map(t -> t.path("name").asText())
        .toList();
  }
}
