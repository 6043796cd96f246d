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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code toolledger.jar} as a user runs it: {@code serve} in one process, {@code
 * tokens create} in another against the same file while it serves, a real request, then SIGTERM.
 */
class ServeProcessIT {

  @TempDir Path dir;

  @Test
  void serveAnswersRequestsAndStopsCleanlyOnSigterm() throws Exception {
    Path db = dir.resolve("ledger.db");
    Process server = PackagedJar.serve(db, dir.resolve("server.err"));
    try {
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      URI base = PackagedJar.servingUri(lines);
      // Another process creates the token against the same file while the server serves.
      String token = PackagedJar.token(db, "acme");

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
}
