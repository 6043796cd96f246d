package dev.toolledger.server.mcp;

import static dev.toolledger.server.mcp.McpToolsOverHttpTest.createNote;
import static dev.toolledger.server.mcp.McpToolsOverHttpTest.getOperation;
import static dev.toolledger.server.mcp.McpToolsOverHttpTest.problemType;
import static dev.toolledger.server.mcp.McpToolsOverHttpTest.structured;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.testkit.MovableClock;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A late MCP call of a swept key is a tool error of type operation-expired; nothing runs. */
class McpRetentionTest {
  @TempDir Path dir;

  @Test
  void lateCallAndLookupOfASweptKeyAreOperationExpiredErrors() throws Exception {
    MovableClock clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    try (McpFixture fixture =
        McpFixture.start(
            dir,
            node ->
                node.engineConfig(EngineConfig.builder().clock(clock).build())
                    .sweepInterval(Duration.ZERO))) {
      McpSyncClient client = fixture.client(fixture.token("acme"));
      assertThat(client.callTool(createNote("op-1", "groceries")).isError()).isFalse();
      clock.advance(Duration.ofDays(7));
      fixture.app.engine().sweep(500);

      CallToolResult late = client.callTool(createNote("op-1", "groceries"));
      CallToolResult lookup = client.callTool(getOperation("op-1"));

      for (CallToolResult result : new CallToolResult[] {late, lookup}) {
        assertThat(result.isError()).isTrue();
        assertThat(problemType(result)).isEqualTo(ProblemType.EXPIRED.uri().toString());
        assertThat(structured(result).get("status").asInt()).isEqualTo(410);
        assertThat(result.meta()).doesNotContainKey(McpConventions.REPLAYED);
      }
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }
}
