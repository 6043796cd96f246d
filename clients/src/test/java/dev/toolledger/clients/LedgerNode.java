package dev.toolledger.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real ToolLedger node: the CLI's {@code Main} in a child JVM ({@code tokens create}, then {@code
 * serve --port 0}) on a SQLite file, serving the bundled {@code create-note}, as a user starts it.
 */
final class LedgerNode implements AutoCloseable {
  private static final Pattern SERVING = Pattern.compile("serving (http://\\S+)");

  private final Process process;
  private final URI uri;
  private final String token;

  private LedgerNode(Process process, URI uri, String token) {
    this.process = process;
    this.uri = uri;
    this.token = token;
  }

  static LedgerNode start(Path dir) throws Exception {
    Path db = dir.resolve("ledger.db");
    Process tokens =
        new ProcessBuilder(cli("tokens", "create", "--tenant", "polyglot", "--db", db.toString()))
            .redirectError(dir.resolve("tokens.err").toFile())
            .start();
    String token =
        new String(tokens.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(tokens.waitFor(60, TimeUnit.SECONDS)).as("tokens create ends").isTrue();
    assertThat(tokens.exitValue()).as("tokens create exit code").isZero();
    assertThat(token).startsWith("tl_");

    Process serve =
        new ProcessBuilder(cli("serve", "--port", "0", "--db", db.toString()))
            .redirectError(dir.resolve("serve.err").toFile())
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
    String first = out.readLine();
    assertThat(first).as("first line of serve (see serve.err)").isNotNull();
    Matcher m = SERVING.matcher(first);
    assertThat(m.find()).as(first).isTrue();
    // Keep draining stdout so the server never blocks on a full pipe.
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // discarded
                }
              } catch (IOException ignored) {
                // the process ended
              }
            },
            "serve-stdout");
    drain.setDaemon(true);
    drain.start();
    return new LedgerNode(serve, URI.create(m.group(1)), token);
  }

  private static List<String> cli(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.toolledger.cli.Main"));
    command.addAll(List.of(args));
    return command;
  }

  URI uri() {
    return uri;
  }

  String token() {
    return token;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
