package dev.toolledger.guard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.LossyProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official TypeScript and Python MCP SDKs drive the guard over stdio as a host does: each
 * launches the guard, lists its tools and calls {@code create-note} with no operation key, through
 * a link to a real node that loses the node's first answer after the commit.
 *
 * <p>Skipped with a message when node/npm or python3 with the {@code mcp} package are missing,
 * unless {@code TOOLLEDGER_REQUIRE_POLYGLOT=true} (as in CI), when that fails instead. The npm
 * package is installed from {@code src/test/polyglot/package-lock.json} into {@code
 * target/polyglot} on first use.
 */
class GuardPolyglotTest {
  private static final Path SOURCES = Path.of("src", "test", "polyglot");
  private static final Path WORK = Path.of("target", "polyglot");
  private static final boolean REQUIRED =
      "true".equalsIgnoreCase(System.getenv("TOOLLEDGER_REQUIRE_POLYGLOT"));

  @TempDir Path dir;

  @Test
  void typescriptSdkHostGetsOneEffectPerActionThroughTheGuard() throws Exception {
    require(runs("node", "--version"), "node is not installed");
    require(runs("npm", "--version"), "npm is not installed");
    Files.createDirectories(WORK);
    for (String file : List.of("package.json", "package-lock.json", "host.mjs")) {
      Files.copy(SOURCES.resolve(file), WORK.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    }
    if (!Files.isDirectory(WORK.resolve("node_modules/@modelcontextprotocol/sdk"))) {
      require(
          runsIn(WORK, 300, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"),
          "npm ci of @modelcontextprotocol/sdk failed (no registry?)");
    }
    drive("typescript", List.of("node", WORK.resolve("host.mjs").toAbsolutePath().toString()));
  }

  @Test
  void pythonSdkHostGetsOneEffectPerActionThroughTheGuard() throws Exception {
    require(runs("python3", "--version"), "python3 is not installed");
    require(
        runs("python3", "-c", "import mcp.client.stdio"),
        "the Python package mcp is not installed (pip install mcp)");
    drive("python", List.of("python3", SOURCES.resolve("host.py").toAbsolutePath().toString()));
  }

  private void drive(String name, List<String> host) throws Exception {
    String title = "from " + name;
    try (NotesNode node = NotesNode.start(dir)) {
      Wire wire = Wire.dropFirst(1, "create-note");
      try (LossyProxy link = LossyProxy.start(node.uri(), wire)) {
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder builder =
            new ProcessBuilder(host).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder
            .environment()
            .put(
                "GUARD_COMMAND",
                Json.mapper()
                    .writeValueAsString(
                        GuardProcess.command(
                            link.uri().resolve("/mcp"), dir.resolve("guard.db"), null)));
        builder.environment().put("TOOLLEDGER_TOKEN", node.token("acme"));
        builder.environment().put("NOTE_TITLE", title);
        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          Assertions.fail(name + " host did not finish:\n" + Files.readString(err));
        }
        assertThat(process.exitValue()).as(Files.readString(err)).isZero();
        List<String> lines = Files.readAllLines(out);
        assertThat(lines).as(Files.readString(err)).isNotEmpty();
        JsonNode seen = Json.parse(lines.get(lines.size() - 1));

        assertThat(texts(seen.path("tools")))
            .contains("create-note", "pending-actions", "get-operation");
        JsonNode first = seen.path("first");
        JsonNode second = seen.path("second");
        assertThat(first.path("isError").asBoolean()).isFalse();
        assertThat(first.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("executed");
        assertThat(first.path("structuredContent").path("title").asText()).isEqualTo(title);
        assertThat(link.dropped()).as("the node's first answer was lost").isEqualTo(1);
        List<String> keys = wire.keys("create-note");
        assertThat(keys).hasSize(3);
        assertThat(keys.get(1)).as("the retry kept the key").isEqualTo(keys.get(0));
        assertThat(second.path("_meta").path("dev.toolledger/outcome").asText())
            .isEqualTo("executed");
        assertThat(keys.get(2)).as("a deliberate repeat is a new action").isNotEqualTo(keys.get(0));
        assertThat(node.notesTitled(title)).as("one note per action").isEqualTo(2);
        assertThat(seen.path("pending").path("structuredContent").path("actions").size()).isZero();
        assertThat(seen.path("lookup").path("structuredContent").path("state").asText())
            .isEqualTo("COMPLETED");
      }
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  private static void require(boolean present, String what) {
    if (present) {
      return;
    }
    if (REQUIRED) {
      Assertions.fail(what + ", and TOOLLEDGER_REQUIRE_POLYGLOT=true requires this test to run");
    }
    Assumptions.abort(
        what + ": skipping the polyglot host test (set TOOLLEDGER_REQUIRE_POLYGLOT=true to fail)");
  }

  private static boolean runs(String... command) {
    return runsIn(Path.of("."), 60, command);
  }

  private static boolean runsIn(Path where, int seconds, String... command) {
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(where.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
      return process.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
