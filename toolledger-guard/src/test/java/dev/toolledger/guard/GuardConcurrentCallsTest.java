package dev.toolledger.guard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.LossyProxy;
import dev.toolledger.testkit.RequestGate;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two identical calls at the same moment are one action: the first call's request is held in the
 * network until the second call has reached the node too, so neither is answered before the other
 * was claimed.
 */
class GuardConcurrentCallsTest {
  @TempDir Path dir;

  @Test
  void twoIdenticalCallsAtOnceAreOneActionWithOneEffect() throws Exception {
    AtomicBoolean armed = new AtomicBoolean();
    AtomicInteger posts = new AtomicInteger();
    CountDownLatch secondArrived = new CountDownLatch(1);
    RequestGate holdFirstUntilSecond =
        (method, target) -> {
          if (!armed.get() || !method.equals("POST")) {
            return;
          }
          if (posts.incrementAndGet() == 1) {
            secondArrived.await(10, TimeUnit.SECONDS);
          } else {
            secondArrived.countDown();
          }
        };
    Wire wire = Wire.lossless();
    try (NotesNode node = NotesNode.start(dir);
        LossyProxy link = LossyProxy.start(node.uri(), wire, holdFirstUntilSecond);
        GuardProcess guard =
            GuardProcess.start(
                link.uri().resolve("/mcp"),
                node.token("acme"),
                dir.resolve("guard.db"),
                dir.resolve("guard.log"),
                null)) {
      guard.initialize();
      guard.listTools();
      armed.set(true);

      JsonNode note = Json.parse("{\"title\":\"at once\"}");
      long first = guard.callAsync("create-note", note);
      long second = guard.callAsync("create-note", note);
      JsonNode a = guard.await(first);
      JsonNode b = guard.await(second);

      assertThat(secondArrived.getCount()).as("the first request was held").isZero();
      assertThat(node.notesTitled("at once")).as("one effect").isEqualTo(1);
      assertThat(Set.copyOf(wire.keys("create-note"))).as("one key").hasSize(1);
      assertThat(a.path("_meta").path("dev.toolledger/action").asText())
          .isEqualTo(b.path("_meta").path("dev.toolledger/action").asText());
      for (JsonNode answer : new JsonNode[] {a, b}) {
        assertThat(answer.path("isError").asBoolean()).isFalse();
        assertThat(answer.path("_meta").path("dev.toolledger/outcome").asText())
            .isIn("executed", "replayed");
        assertThat(answer.path("structuredContent").path("title").asText()).isEqualTo("at once");
      }
    }
  }
}
