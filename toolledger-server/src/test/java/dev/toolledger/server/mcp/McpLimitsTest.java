package dev.toolledger.server.mcp;

import static dev.toolledger.server.mcp.McpToolsOverHttpTest.createNote;
import static dev.toolledger.server.mcp.McpToolsOverHttpTest.problemType;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rate and response-size limits reach MCP callers as tool errors with the same types. */
class McpLimitsTest {
  @TempDir Path dir;

  @Test
  void rateLimitedAndTooLargeCallsAreToolErrorsAndRecordNothing() throws Exception {
    MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    try (McpFixture fixture =
        McpFixture.start(
            dir,
            node ->
                node.engineConfig(
                    EngineConfig.builder()
                        .clock(clock)
                        .maxResponseBytes(1024)
                        .newOperationLimit(new RateLimit(2, Duration.ofMinutes(1)))
                        .build()))) {
      McpSyncClient client = fixture.client(fixture.token("acme"));

      CallToolResult tooLarge =
          client.callTool(
              CallToolRequest.builder("create-note")
                  .arguments(Map.of("title", "big", "body", "x".repeat(2000)))
                  .meta(Map.of(McpConventions.OPERATION_KEY, "op-big"))
                  .build());
      assertThat(client.callTool(createNote("op-2", "b")).isError()).isFalse();
      CallToolResult limited = client.callTool(createNote("op-3", "c"));
      CallToolResult replay = client.callTool(createNote("op-2", "b"));

      assertThat(tooLarge.isError()).isTrue();
      assertThat(problemType(tooLarge)).isEqualTo(ProblemType.RESPONSE_TOO_LARGE.uri().toString());
      assertThat(limited.isError()).isTrue();
      assertThat(problemType(limited)).isEqualTo(ProblemType.RATE_LIMITED.uri().toString());
      assertThat(limited.meta()).containsEntry(McpConventions.RETRY_AFTER_SECONDS, 30);
      assertThat(replay.isError()).isFalse();
      assertThat(replay.meta()).containsEntry(McpConventions.REPLAYED, true);
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }
}
