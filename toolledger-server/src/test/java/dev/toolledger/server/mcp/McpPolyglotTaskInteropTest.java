package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.protocol.Json;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official TypeScript SDK ({@code @modelcontextprotocol/sdk}) and Python SDK ({@code mcp})
 * against a real node on port 0: initialize, list tools, a keyed create and its replay, and (the
 * TypeScript SDK, whose experimental tasks speak MCP 2025-11-25) a task for a call another attempt
 * still holds, polled until it completes. Skipped with a message when node/npm or python with mcp
 * are missing, unless {@code TOOLLEDGER_REQUIRE_POLYGLOT=true}: then they fail.
 */
class McpPolyglotTaskInteropTest {
  private static final Path POLYGLOT = Path.of("src", "test", "polyglot");
  private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  void typescriptSdkReplaysAKeyedCreateAndPollsATaskUntilItCompletes() throws Exception {
    Path node = POLYGLOT.resolve("node");
    require(
        works(List.of("node", "--version"), node) && works(List.of("npm", "--version"), node),
        "node and npm");
    if (!Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/sdk"))) {
      Process install =
          new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
              .directory(node.toFile())
              .redirectErrorStream(true)
              .start();
      String out = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(install.waitFor()).as("npm ci: " + out).isZero();
    }
    McpTasksTest.HeldEffectTool held = new McpTasksTest.HeldEffectTool();
    try (McpFixture fixture =
        McpFixture.start(
            dir,
            app ->
                app.tool(held)
                    .engineConfig(
                        EngineConfig.builder().maxWait(Duration.ofMillis(200)).build()))) {
      String token = fixture.token("acme");
      RawMcp raw = RawMcp.open(fixture.mcpUri(), token);
      String heldKey = "held-ts";
      try (Socket holder =
          raw.postAndKeepOpen(
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
                  + McpTasksTest.HeldEffectTool.NAME
                  + "\",\"arguments\":{\"title\":\"held\"},\"_meta\":{\""
                  + McpConventions.OPERATION_KEY
                  + "\":\""
                  + heldKey
                  + "\"}}}")) {
        assertThat(held.entered.await(30, TimeUnit.SECONDS)).as("the held call started").isTrue();
        // Let the held call go once the script's call of it has become a task: that task was
        // created "working", whatever the machine's speed, and the script polls it to its end.
        // (A fixed pause after the script's create was not enough on a loaded machine.)
        Thread releaser =
            new Thread(
                () -> {
                  try {
                    long deadline = System.nanoTime() + SCRIPT_TIMEOUT.toNanos();
                    while (tasksOf(raw) == 0 && System.nanoTime() < deadline) {
                      Thread.sleep(50);
                    }
                  } catch (Exception e) {
                    // Released below all the same, so the held call ends.
                  }
                  held.release.countDown();
                });
        releaser.start();
        String out =
            run(
                List.of("node", "interop.mjs"),
                node,
                Map.of(
                    "MCP_URL",
                    fixture.mcpUri().toString(),
                    "TOKEN",
                    token,
                    "HELD_TOOL",
                    McpTasksTest.HeldEffectTool.NAME,
                    "HELD_KEY",
                    heldKey));
        releaser.join();

        assertThat(out)
            .contains("\"protocolVersion\":\"2025-11-25\"")
            .contains("\"statuses\":[\"working\"")
            .contains("\"completed\"]");
        assertThat(held.performed.get()).isEqualTo(1);
        assertThat(fixture.count("SELECT COUNT(*) FROM notes WHERE title = 'from typescript'"))
            .isEqualTo(1);
      }
    }
  }

  @Test
  void pythonSdkConnectsAndReplaysAKeyedCreate() throws Exception {
    Path python = POLYGLOT.resolve("python");
    require(works(List.of("python3", "-c", "import mcp"), python), "python3 with mcp");
    try (McpFixture fixture = McpFixture.start(dir)) {
      String token = fixture.token("acme");
      String out =
          run(
              List.of("python3", "interop.py"),
              python,
              Map.of("MCP_URL", fixture.mcpUri().toString(), "TOKEN", token));

      assertThat(out).contains("\"sdk\": \"python\"").contains("\"replayed\": true");
      assertThat(fixture.count("SELECT COUNT(*) FROM notes WHERE title = 'from python'"))
          .isEqualTo(1);
    }
  }

  /** The tasks the tenant of {@code session} has. */
  private static int tasksOf(RawMcp session) throws Exception {
    return Json.parse(
            session.post("{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tasks/list\"}").body())
        .path("result")
        .path("tasks")
        .size();
  }

  private static void require(boolean available, String what) {
    if (available) {
      return;
    }
    String message =
        what
            + " not found: the MCP SDK interop test is skipped (set"
            + " TOOLLEDGER_REQUIRE_POLYGLOT=true to make this a failure)";
    if ("true".equals(System.getenv("TOOLLEDGER_REQUIRE_POLYGLOT"))) {
      fail(message);
    }
    Assumptions.abort(message);
  }

  private static boolean works(List<String> command, Path dir) {
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String run(List<String> command, Path dir, Map<String, String> env)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    long started = System.nanoTime();
    Process process = builder.start();
    process.getOutputStream().close();
    if (!process.waitFor(SCRIPT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail(command + " did not end within " + SCRIPT_TIMEOUT);
    }
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(command + " printed:\n" + out).isZero();
    System.out.printf(
        "%s took %d ms and printed: %s%n",
        command, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), out.strip());
    return out;
  }
}
