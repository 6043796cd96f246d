package dev.toolledger.guard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node does not list its tools when the guard starts: the guard serves its own tools, asks
 * again, and tells the host the list changed once the node answers.
 */
class GuardNodeLateTest {
  @TempDir Path dir;

  @Test
  void toolsTheNodeListsLateAreAddedAndTheHostIsToldTheListChanged() throws Exception {
    AtomicInteger lists = new AtomicInteger();
    Wire firstListLost =
        new Wire(
            m -> "tools/list".equals(m.path("method").asText()) && lists.incrementAndGet() == 1);
    try (NotesNode node = NotesNode.start(dir);
        LossyProxy link = LossyProxy.start(node.uri(), firstListLost);
        GuardProcess guard =
            GuardProcess.start(
                link.uri().resolve("/mcp"),
                node.token("acme"),
                dir.resolve("guard.db"),
                dir.resolve("guard.log"),
                2_000L)) {
      guard.initialize();
      assertThat(GuardLossyLinkTest.names(guard.listTools()))
          .containsExactlyInAnyOrder("pending-actions", "get-operation");

      guard.awaitNotification("notifications/tools/list_changed", 30);

      assertThat(GuardLossyLinkTest.names(guard.listTools())).contains("create-note");
      JsonNode created = guard.call("create-note", Json.parse("{\"title\":\"late\"}"));
      assertThat(created.path("_meta").path("dev.toolledger/outcome").asText())
          .isEqualTo("executed");
      assertThat(node.notesTitled("late")).isEqualTo(1);
    }
  }
}
