package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once a call reaches the engine, it runs to the end and records its outcome, whatever happens to
 * the caller: a retry with the same key then gets that outcome instead of a second effect.
 */
class McpCallSurvivesItsCallerTest {
  private static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  @Test
  void callerThatDisconnectsMidCallStillHasItsOutcomeRecordedAndReplayedOnRetry() throws Exception {
    SlowNoteTool slow = new SlowNoteTool();
    try (McpFixture fixture = McpFixture.start(dir, app -> app.tool(slow))) {
      String token = fixture.token("acme");
      RawMcp raw = RawMcp.open(fixture.mcpUri(), token);

      try (Socket call = raw.postAndKeepOpen(toolsCall("op-slow", "written while nobody waits"))) {
        assertThat(slow.entered.await(30, TimeUnit.SECONDS)).as("the tool started").isTrue();
      } // The caller hangs up while the tool is still inside its transaction.
      slow.release.countDown();

      awaitTrue(
          () -> state(fixture, "op-slow").filter(OperationState.COMPLETED::equals).isPresent());
      CallToolResult retry =
          fixture
              .client(token)
              .callTool(
                  CallToolRequest.builder(SlowNoteTool.NAME)
                      .arguments(Map.of("title", "written while nobody waits"))
                      .meta(Map.of(McpConventions.OPERATION_KEY, "op-slow"))
                      .build());

      assertThat(retry.isError()).isFalse();
      assertThat(retry.meta()).containsEntry(McpConventions.REPLAYED, true);
      assertThat(McpToolsOverHttpTest.structured(retry).get("title").asText())
          .isEqualTo("written while nobody waits");
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void stoppingTheServerMidCallDoesNotInterruptTheEngineAndTheOutcomeIsRecorded() throws Exception {
    SlowNoteTool slow = new SlowNoteTool();
    McpFixture fixture = McpFixture.start(dir, app -> app.tool(slow));
    try {
      RawMcp raw = RawMcp.open(fixture.mcpUri(), fixture.token("acme"));
      Socket call = raw.postAndKeepOpen(toolsCall("op-stop", "written during shutdown"));
      assertThat(slow.entered.await(30, TimeUnit.SECONDS)).as("the tool started").isTrue();

      // Stop with no grace: Jetty interrupts the request thread that waits for the call, and the
      // waiting is cancelled. The engine's thread must not notice.
      Thread stopper = new Thread(fixture.app::close, "stopper");
      stopper.start();
      awaitTrue(() -> !anyThreadNamed("toolledger-http"));
      slow.release.countDown();
      stopper.join(TimeUnit.SECONDS.toMillis(30));
      call.close();

      assertThat(stopper.isAlive()).as("close() returned").isFalse();
      assertThat(state(fixture, "op-stop")).hasValue(OperationState.COMPLETED);
      assertThat(fixture.notes()).isEqualTo(1);
    } finally {
      fixture.close();
    }
  }

  private static String toolsCall(String key, String title) {
    return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\""
        + SlowNoteTool.NAME
        + "\",\"_meta\":{\""
        + McpConventions.OPERATION_KEY
        + "\":\""
        + key
        + "\"},\"arguments\":{\"title\":\""
        + title
        + "\"}}}";
  }

  private static Optional<OperationState> state(McpFixture fixture, String key) {
    return fixture.app.engine().lookup(ACME, OperationKey.of(key)).map(OperationRecord::state);
  }

  private static boolean anyThreadNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.isAlive() && t.getName().startsWith(prefix));
  }

  /** Polls a condition that the test cannot be told about, for at most 30 seconds. */
  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 30 s");
      }
      Thread.sleep(20);
    }
  }
}
