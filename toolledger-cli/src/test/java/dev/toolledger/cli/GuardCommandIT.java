package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar's {@code guard} as a host runs it: a keyless MCP client (the Java SDK's stdio
 * client) launches {@code toolledger.jar guard} with the token in its environment, in front of a
 * {@code serve} process.
 */
class GuardCommandIT {
  private static final String TITLE = "through the packaged guard";

  @TempDir Path dir;

  @Test
  void aKeylessHostGetsTheNodesToolsThroughTheGuardAndEachCallIsOneAction() throws Exception {
    Path db = dir.resolve("ledger.db");
    String token = PackagedJar.token(db, "acme");
    Process node = PackagedJar.serve(db, dir.resolve("serve.err"));
    List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    try {
      URI uri = PackagedJar.servingUri(node);
      ServerParameters command =
          ServerParameters.builder(PackagedJar.java())
              .args(
                  "-jar",
                  PackagedJar.JAR.toString(),
                  "guard",
                  "--node",
                  uri.toString(),
                  "--journal",
                  dir.resolve("guard.db").toString())
              .env(Map.of("TOOLLEDGER_TOKEN", token))
              .build();
      StdioClientTransport transport =
          new StdioClientTransport(command, new JacksonMcpJsonMapper(new ObjectMapper()));
      transport.setStdErrorHandler(stderr::add);
      McpSyncClient host =
          McpClient.sync(transport)
              .requestTimeout(Duration.ofSeconds(60))
              .initializationTimeout(Duration.ofSeconds(60))
              .build();
      try {
        host.initialize();
        List<Tool> tools = host.listTools().tools();
        CallToolRequest note =
            CallToolRequest.builder("create-note").arguments(Map.of("title", TITLE)).build();
        CallToolResult first = host.callTool(note);
        CallToolResult second = host.callTool(note);

        assertThat(tools)
            .extracting(Tool::name)
            .containsExactlyInAnyOrder("create-note", "pending-actions", "get-operation");
        assertThat(first.isError()).isFalse();
        assertThat(first.meta()).containsEntry("dev.toolledger/outcome", "executed");
        assertThat(second.meta()).containsEntry("dev.toolledger/outcome", "executed");
        assertThat(second.meta().get("dev.toolledger/action"))
            .isNotEqualTo(first.meta().get("dev.toolledger/action"));
        assertThat(((Map<?, ?>) second.structuredContent()).get("id"))
            .isNotEqualTo(((Map<?, ?>) first.structuredContent()).get("id"));
      } finally {
        host.closeGracefully();
      }
    } finally {
      PackagedJar.stop(node);
    }
    assertThat(stderr).anyMatch(line -> line.contains("serving MCP on stdio"));
    assertThat(stderr).noneMatch(line -> line.contains(token));
    assertThat(stderr).noneMatch(line -> line.contains(TITLE));
    assertThat(Files.exists(dir.resolve("guard.db"))).isTrue();
  }
}
