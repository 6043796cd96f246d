package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code toolledger.jar} as a user runs it: {@code serve} in one process, {@code
 * tokens create} in another against the same file while it serves, a real request, then SIGTERM.
 */
class ServeProcessIT {
  private static final Path JAR = Path.of("target", "toolledger.jar");
  private static final Pattern URL = Pattern.compile("serving (http://\\S+)");

  @TempDir Path dir;

  @Test
  void serveAnswersRequestsAndStopsCleanlyOnSigterm() throws Exception {
    assertThat(JAR).exists();
    Path db = dir.resolve("ledger.db");
    Process server =
        new ProcessBuilder(
                java(), "-jar", JAR.toString(), "serve", "--port", "0", "--db", db.toString())
            .redirectError(dir.resolve("server.err").toFile())
            .start();
    try {
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String first = lines.readLine();
      assertThat(first).as("first line of serve").isNotNull();
      Matcher m = URL.matcher(first);
      assertThat(m.find()).as(first).isTrue();
      URI base = URI.create(m.group(1));

      Process tokens =
          new ProcessBuilder(
                  java(),
                  "-jar",
                  JAR.toString(),
                  "tokens",
                  "create",
                  "--tenant",
                  "acme",
                  "--db",
                  db.toString())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String token =
          new String(tokens.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertThat(tokens.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(tokens.exitValue()).isZero();
      assertThat(token).startsWith("tl_");

      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(base.resolve("/v1/tools/create-note"))
                  .header("Authorization", "Bearer " + token)
                  .header("Idempotency-Key", "op-1")
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"from a process\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(201);

      server.toHandle().destroy(); // SIGTERM, keeping our end of its stdout open
      assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s").isTrue();
      assertThat(lines.readLine()).contains("stopping");
      List<String> errors = Files.readAllLines(dir.resolve("server.err"));
      assertThat(errors).noneMatch(line -> line.contains("ERROR"));
    } finally {
      server.destroyForcibly();
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
