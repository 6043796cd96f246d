package dev.toolledger.cli;

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

/** The packaged {@code target/toolledger.jar}, run as a user runs it: one process per command. */
final class PackagedJar {
  static final Path JAR = Path.of("target", "toolledger.jar");
  private static final Pattern SERVING = Pattern.compile("serving (http://\\S+)");

  private PackagedJar() {}

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Starts {@code java -jar toolledger.jar ARGS...} with its standard error in {@code stderr}. */
  static Process start(Path stderr, String... args) throws IOException {
    assertThat(JAR).as("the packaged jar (mvn package builds it)").exists();
    List<String> command = new ArrayList<>(List.of(java(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(stderr.toFile()).start();
  }

  /** Starts {@code serve --port 0 --db DB MORE...}; stop it with {@link #stop}. */
  static Process serve(Path db, Path stderr, String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--db", db.toString()));
    args.addAll(List.of(more));
    return start(stderr, args.toArray(String[]::new));
  }

  /** The URL a {@code serve} process prints on its first line. */
  static URI servingUri(Process server) throws IOException {
    return servingUri(
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)));
  }

  /** As {@link #servingUri(Process)}, for a caller that goes on reading the same output. */
  static URI servingUri(BufferedReader lines) throws IOException {
    String first = lines.readLine();
    assertThat(first).as("first line of serve").isNotNull();
    Matcher m = SERVING.matcher(first);
    assertThat(m.find()).as(first).isTrue();
    return URI.create(m.group(1));
  }

  /** A new bearer token from {@code tokens create --tenant TENANT --db DB MORE...}. */
  static String token(Path db, String tenant, String... more) throws Exception {
    return token(db.toString(), tenant, more);
  }

  /** As {@link #token(Path, String, String...)}, for a ledger named by a path or a JDBC URL. */
  static String token(String db, String tenant, String... more) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                java(),
                "-jar",
                JAR.toString(),
                "tokens",
                "create",
                "--tenant",
                tenant,
                "--db",
                db));
    command.addAll(List.of(more));
    Process tokens =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String token =
        new String(tokens.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(tokens.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tokens.exitValue()).isZero();
    assertThat(token).startsWith("tl_");
    return token;
  }

  /** SIGTERM, then SIGKILL if it has not stopped within 30 seconds. */
  static void stop(Process process) throws InterruptedException {
    process.toHandle().destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
