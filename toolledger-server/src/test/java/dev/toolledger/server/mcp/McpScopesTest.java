package dev.toolledger.server.mcp;

import static dev.toolledger.server.mcp.McpToolsOverHttpTest.createNote;
import static dev.toolledger.server.mcp.McpToolsOverHttpTest.getOperation;
import static dev.toolledger.server.mcp.McpToolsOverHttpTest.problemType;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.protocol.ProblemType;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Token scopes over MCP: tools/list shows what a token may use; other calls are forbidden. */
class McpScopesTest {
  static final String FORBIDDEN = ProblemType.FORBIDDEN.uri().toString();

  @TempDir Path dir;

  static String token(McpFixture fixture, String... scopes) {
    return fixture.app.tokens().issue(TenantId.of("acme"), Scopes.of(scopes), "test").token();
  }

  static java.util.List<String> listed(McpSyncClient client) {
    return client.listTools().tools().stream().map(Tool::name).toList();
  }

  @Test
  void toolsListShowsOnlyTheToolsATokenMayUse() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      assertThat(listed(fixture.client(token(fixture, "tools:*", "read"))))
          .containsExactly("create-note", "get-operation");
      assertThat(listed(fixture.client(token(fixture, "tools:create-note"))))
          .containsExactly("create-note");
      assertThat(listed(fixture.client(token(fixture, "read")))).containsExactly("get-operation");
      assertThat(listed(fixture.client(token(fixture, "resolve")))).isEmpty();
    }
  }

  @Test
  void callsAndReplaysOutsideTheScopesAreForbiddenToolErrorsAndRecordNothing() throws Exception {
    try (McpFixture fixture = McpFixture.start(dir)) {
      McpSyncClient writer = fixture.client(token(fixture, "tools:*", "read"));
      McpSyncClient reader = fixture.client(token(fixture, "read"));
      McpSyncClient toolsOnly = fixture.client(token(fixture, "tools:*"));
      assertThat(writer.callTool(createNote("op-1", "groceries")).isError()).isFalse();

      CallToolResult replayByReader = reader.callTool(createNote("op-1", "groceries"));
      CallToolResult newByReader = reader.callTool(createNote("op-2", "groceries"));
      CallToolResult lookupWithoutRead = toolsOnly.callTool(getOperation("op-1"));
      CallToolResult lookupWithRead = reader.callTool(getOperation("op-1"));

      for (CallToolResult refused :
          new CallToolResult[] {replayByReader, newByReader, lookupWithoutRead}) {
        assertThat(refused.isError()).isTrue();
        assertThat(problemType(refused)).isEqualTo(FORBIDDEN);
        assertThat(refused.meta()).doesNotContainKey(McpConventions.REPLAYED);
      }
      assertThat(lookupWithRead.isError()).isFalse();
      assertThat(fixture.notes()).isEqualTo(1);
      assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(1);
    }
  }
}
