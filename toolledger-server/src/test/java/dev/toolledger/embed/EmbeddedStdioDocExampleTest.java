package dev.toolledger.embed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.testkit.DocSnippet;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/mcp.md's stdio example ({@link StdioExample}): the page shows it as the test compiles it,
 * and a real MCP client that starts it as its server process gets the ledger's guarantees.
 */
class EmbeddedStdioDocExampleTest {
  @TempDir Path dir;

  @Test
  void thePageShowsTheExampleAsWritten() throws Exception {
    assertThat(
            DocSnippet.inPage(
                Path.of("..", "docs", "mcp.md"), "### Serving MCP on stdio from Java"))
        .isEqualTo(
            DocSnippet.inSource(
                Path.of("src/test/java/dev/toolledger/embed/StdioExample.java"), "docs/mcp.md"));
  }

  @Test
  void anMcpClientThatStartsTheExampleRunsKeyedAndUnkeyedCalls() throws Exception {
    String database = dir.resolve("ledger.db").toString();
    ServerParameters command =
        ServerParameters.builder(Path.of(System.getProperty("java.home"), "bin", "java").toString())
            .args(
                "-cp",
                System.getProperty("java.class.path"),
                StdioExample.class.getName(),
                database)
            .build();
    StdioClientTransport transport =
        new StdioClientTransport(command, new JacksonMcpJsonMapper(new ObjectMapper()));
    CallToolResult keyed;
    CallToolResult retry;
    CallToolResult unkeyed;
    try (McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build()) {
      client.initialize();
      CallToolRequest call =
          CallToolRequest.builder("create-note")
              .arguments(Map.of("title", "over stdio"))
              .meta(Map.of("dev.toolledger/operation-key", "note-1"))
              .build();
      keyed = client.callTool(call);
      retry = client.callTool(call);
      unkeyed =
          client.callTool(
              CallToolRequest.builder("create-note").arguments(Map.of("title", "x")).build());
    }

    assertThat(keyed.isError()).isFalse();
    assertThat(retry.meta()).containsEntry("dev.toolledger/replayed", true);
    assertThat(retry.structuredContent()).isEqualTo(keyed.structuredContent());
    assertThat(unkeyed.isError()).isFalse();
    // The process has ended: the ledger it wrote is there for the next one, under the tenant.
    try (ToolLedger ledger =
        ToolLedger.builder(database)
            .plugin(new dev.toolledger.examples.notes.NotesPlugin())
            .build()) {
      CallResult again =
          ledger.call(
              TenantId.of("acme"),
              "note-1",
              "create-note",
              new ObjectMapper().readTree("{\"title\":\"over stdio\"}"));
      assertThat(again).isInstanceOf(CallResult.Done.class);
      assertThat(((CallResult.Done) again).replayed()).isTrue();
    }
  }
}
