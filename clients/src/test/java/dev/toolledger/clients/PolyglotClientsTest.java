package dev.toolledger.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the TypeScript client's suite ({@code npm test}, i.e. {@code node --test}) and the Python
 * client's ({@code python3 -m pytest}, or {@code unittest} when pytest is absent) as child
 * processes against one real node (the CLI's main in a child JVM) and a {@link ControlledProxy}
 * that loses answers after the commit when a suite asks it to. Each suite gets the URLs and the
 * token in its environment and must exit 0; its output is printed.
 *
 * <p>Without Node.js 18+ or Python 3.10+ the suite is skipped with a message, unless {@code
 * TOOLLEDGER_REQUIRE_POLYGLOT=true} (set by {@code .ci/run}), when it fails.
 */
class PolyglotClientsTest {
  static final String REQUIRE_VARIABLE = "TOOLLEDGER_REQUIRE_POLYGLOT";
  private static final Path CLIENTS = Path.of("").toAbsolutePath();
  private static final long SUITE_MINUTES = 5;
  private static final long NPM_CI_MINUTES = 20; // better-sqlite3 compiles its SQLite

  @TempDir static Path dir;
  private static LedgerNode node;
  private static ControlledProxy proxy;

  @BeforeAll
  static void startNode() throws Exception {
    node = LedgerNode.start(dir);
    proxy = new ControlledProxy(node.uri());
  }

  @AfterAll
  static void stopNode() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
    if (node != null) {
      node.close();
    }
  }

  @Test
  void typeScriptClientSuitePassesAgainstARealNode() throws Exception {
    Path ts = CLIENTS.resolve("typescript");
    Optional<String> node18 = version("node", "--version").filter(v -> major(v, 'v') >= 18);
    if (node18.isEmpty() || version("npm", "--version").isEmpty()) {
      skip("Node.js 18+ with npm is not on the PATH; the TypeScript client's suite needs it");
    }
    if (!Files.isDirectory(ts.resolve("node_modules"))) {
      Result ci =
          run(ts, List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), NPM_CI_MINUTES);
      if (ci.exit != 0) {
        fail("npm ci failed in " + ts + " (exit " + ci.exit + "):\n" + ci.output);
      }
    }
    Result result = run(ts, List.of("npm", "test"), env(), SUITE_MINUTES);
    assertThat(result.exit).as("npm test exit code; output:\n%s", result.output).isZero();
    assertThat(result.output).as("node --test ran tests").containsPattern("# pass [1-9]");
    assertThat(result.output).contains("# fail 0");
  }

  @Test
  void pythonClientSuitePassesAgainstARealNode() throws Exception {
    Path py = CLIENTS.resolve("python");
    Optional<String> python = version("python3", "--version");
    if (python.isEmpty() || !atLeastPython310(python.get())) {
      skip("Python 3.10+ (python3) is not on the PATH; the Python client's suite needs it");
    }
    boolean pytest = run(py, List.of("python3", "-c", "import pytest"), Map.of(), 1).exit == 0;
    List<String> command =
        pytest
            ? List.of("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
            : List.of("python3", "-m", "unittest", "discover", "-s", "tests", "-v");
    Result result = run(py, command, env(), SUITE_MINUTES);
    assertThat(result.exit)
        .as("%s exit code; output:\n%s", String.join(" ", command), result.output)
        .isZero();
    assertThat(result.output).as("tests ran").containsPattern(pytest ? "[1-9]\\d* passed" : "OK");
  }

  private static Map<String, String> env() {
    return Map.of(
        "TOOLLEDGER_URL", node.uri().toString(),
        "TOOLLEDGER_LOSSY_URL", proxy.uri().toString(),
        "TOOLLEDGER_PROXY_CONTROL", proxy.controlUri().toString(),
        "TOOLLEDGER_TOKEN", node.token(),
        "TOOLLEDGER_POLYGLOT", "true");
  }

  private static void skip(String why) {
    String message = why + ". Set " + REQUIRE_VARIABLE + "=true to make this a failure.";
    if ("true".equals(System.getenv(REQUIRE_VARIABLE))) {
      fail(why + " and " + REQUIRE_VARIABLE + "=true");
    }
    System.err.println("SKIPPED: " + message);
    abort(message);
  }

  record Result(int exit, String output) {}

  private static Result run(Path cwd, List<String> command, Map<String, String> env, long minutes)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile(dir, "suite", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(new ArrayList<>(command))
            .directory(cwd.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      String output = Files.readString(log, StandardCharsets.UTF_8);
      fail(String.join(" ", command) + " took over " + minutes + " min:\n" + output);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println("---- " + String.join(" ", command) + " (in " + cwd + ")");
    System.out.println(output);
    return new Result(process.exitValue(), output);
  }

  private static Optional<String> version(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0
          ? Optional.of(out)
          : Optional.empty();
    } catch (IOException | InterruptedException e) {
      return Optional.empty();
    }
  }

  private static int major(String version, char prefix) {
    String v = version.charAt(0) == prefix ? version.substring(1) : version;
    try {
      return Integer.parseInt(v.split("\\.")[0]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean atLeastPython310(String version) {
    String[] parts = version.replace("Python ", "").split("\\.");
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = Integer.parseInt(parts[1]);
      return major > 3 || (major == 3 && minor >= 10);
    } catch (RuntimeException e) {
      return false;
    }
  }
}
