package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.mcp.McpConventions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code toolledger.jar} as a local agent runs it: {@code mcp --stdio} as a child
 * process, driven by the official MCP Java SDK's stdio client.
 */
class McpStdioIT {
  private static final Path JAR = Path.of("target", "toolledger.jar");
  private static final String KEY = "stdio-key-4711";

  @TempDir Path dir;

  @Test
  void localAgentOverStdioGetsTheLedgerToolsAndARetryReplaysInsteadOfWritingTwice()
      throws Exception {
    assertThat(JAR).exists();
    Path db = dir.resolve("ledger.db");
    List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    McpSyncClient acme = client(db, "acme", stderr);
    try {
      List<Tool> tools = acme.listTools().tools();
      CallToolResult first = acme.callTool(createNote(KEY, "from a local agent"));
      CallToolResult retry = acme.callTool(createNote(KEY, "from a local agent"));
      CallToolResult conflict = acme.callTool(createNote(KEY, "something else"));
      CallToolResult unkeyed =
          acme.callTool(
              CallToolRequest.builder("create-note").arguments(Map.of("title", "x")).build());
      CallToolResult found = acme.callTool(getOperation(KEY));

      assertThat(tools).extracting(Tool::name).containsExactly("create-note", "get-operation");
      assertThat(tools.get(0).annotations().idempotentHint()).isTrue();
      assertThat(tools.get(0).inputSchema()).containsKey("properties");
      assertThat(first.isError()).isFalse();
      assertThat(first.meta()).containsEntry(McpConventions.REPLAYED, false);
      assertThat(retry.meta()).containsEntry(McpConventions.REPLAYED, true);
      assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
      assertThat(conflict.isError()).isTrue();
      assertThat(type(conflict)).isEqualTo(ProblemType.KEY_REUSED.uri().toString());
      assertThat(unkeyed.isError()).isTrue();
      assertThat(type(unkeyed)).isEqualTo(ProblemType.MISSING_KEY.uri().toString());
      assertThat(structured(found).get("state").asText()).isEqualTo("COMPLETED");
    } finally {
      acme.closeGracefully();
    }

    McpSyncClient globex = client(db, "globex", stderr);
    try {
      CallToolResult foreign = globex.callTool(getOperation(KEY));
      CallToolResult unknown = globex.callTool(getOperation("never-sent"));

      assertThat(type(foreign)).isEqualTo(ProblemType.NOT_FOUND.uri().toString());
      assertThat(foreign.structuredContent()).isEqualTo(unknown.structuredContent());
    } finally {
      globex.closeGracefully();
    }
    assertThat(stderr).anyMatch(line -> line.contains("outcome=\"executed\""));
    assertThat(stderr).noneMatch(line -> line.contains(KEY));
    assertThat(stderr).noneMatch(line -> line.contains("from a local agent"));
  }

  @Test
  void stdoutCarriesOnlyTheProtocolAndClosingStdinEndsTheServerCleanly() throws Exception {
    assertThat(JAR).exists();
    Process server =
        new ProcessBuilder(
                java(),
                "-jar",
                JAR.toString(),
                "mcp",
                "--stdio",
                "--db",
                dir.resolve("ledger.db").toString(),
                "--tenant",
                "acme")
            .redirectError(dir.resolve("server.err").toFile())
            .start();
    try {
      OutputStream in = server.getOutputStream();
      in.write(
          ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                  + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}\n"
                  + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                  + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                  + "\"name\":\"create-note\",\"_meta\":{\""
                  + McpConventions.OPERATION_KEY
                  + "\":\"op-1\"},\"arguments\":{\"title\":\"t\"}}}\n")
              .getBytes(StandardCharsets.UTF_8));
      in.flush();
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      JsonNode initialized = Json.parse(out.readLine());
      JsonNode called = Json.parse(out.readLine());
      in.close();

      assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("exited after stdin closed").isTrue();
      assertThat(server.exitValue()).isZero();
      assertThat(initialized.get("id").asInt()).isEqualTo(1);
      assertThat(called.get("id").asInt()).isEqualTo(2);
      assertThat(called.at("/result/isError").asBoolean()).isFalse();
      assertThat(out.readLine()).as("nothing else on stdout").isNull();
      assertThat(java.nio.file.Files.readString(dir.resolve("server.err")))
          .contains("serving MCP on stdio for tenant acme")
          .doesNotContain("ERROR");
    } finally {
      server.destroyForcibly();
    }
  }

  private McpSyncClient client(Path db, String tenant, List<String> stderr) {
    ServerParameters command =
        ServerParameters.builder(java())
            .args(
                "-jar", JAR.toString(), "mcp", "--stdio", "--db", db.toString(), "--tenant", tenant)
            .build();
    StdioClientTransport transport =
        new StdioClientTransport(command, new JacksonMcpJsonMapper(new ObjectMapper()));
    transport.setStdErrorHandler(stderr::add);
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    return client;
  }

  private static CallToolRequest createNote(String key, String title) {
    return CallToolRequest.builder("create-note")
        .arguments(Map.of("title", title))
        .meta(Map.of(McpConventions.OPERATION_KEY, key))
        .build();
  }

  private static CallToolRequest getOperation(String key) {
    return CallToolRequest.builder(McpConventions.GET_OPERATION)
        .arguments(Map.of("key", key))
        .build();
  }

  private static JsonNode structured(CallToolResult result) {
    return Json.mapper().valueToTree(result.structuredContent());
  }

  private static String type(CallToolResult result) {
    return structured(result).path("type").asText();
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
