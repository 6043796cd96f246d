package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.attachments.AttachmentService;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes for real: the packaged server is killed with SIGKILL at random moments while clients
 * create notes, with and without attachments, round after round on the same ledger file. Then every
 * key is retried until it has a final answer, and the history is checked: no acknowledged operation
 * lost or changed, no key with two effects, every outbox event delivered with one effect at the
 * attachment service's inbox, and every operation able to explain its state.
 *
 * <p>Rounds: {@code -Dtoolledger.crash.rounds=N} (default 100).
 */
class CrashRecoveryIT {
  private static final Path JAR = Path.of("target", "toolledger.jar");
  private static final Pattern URL = Pattern.compile("serving (http://\\S+)");
  private static final int ROUNDS = Integer.getInteger("toolledger.crash.rounds", 100);
  private static final int NEW_KEYS_PER_ROUND = 4;
  private static final int CLIENTS = 4;

  @TempDir Path dir;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  /** What a client asked under one key, and the first success it heard, if any. */
  record Intent(String key, String body, boolean attachment) {}

  @Test
  void killedServersLoseNothingAcknowledgedAndNeverExecuteAKeyTwice() throws Exception {
    Path ledger = dir.resolve("ledger.db");
    SplittableRandom random = new SplittableRandom(20261202);
    List<Intent> intents = new ArrayList<>();
    Map<String, String> acknowledged = new ConcurrentHashMap<>();
    try (AttachmentService attachments =
        AttachmentService.start(dir.resolve("attachments.db"), "127.0.0.1", 0)) {
      String token = token(ledger);
      for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < NEW_KEYS_PER_ROUND; i++) {
          int n = intents.size();
          boolean attachment = n % 2 == 0;
          String body =
              "{\"title\":\"note "
                  + n
                  + "\""
                  + (attachment ? ",\"attachment\":\"file " + n + "\"" : "")
                  + "}";
          intents.add(new Intent("crash-" + n, body, attachment));
        }
        Process server = serve(ledger, attachments.endpoint());
        try {
          URI base = awaitUrl(server);
          long killAfter = 30 + random.nextInt(400);
          runClientsUntilKilled(base, token, intents, acknowledged, server, killAfter);
        } finally {
          server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      }

      // The last start: every key is retried with its original intent until it has an answer.
      Process server = serve(ledger, attachments.endpoint());
      try {
        URI base = awaitUrl(server);
        for (Intent intent : intents) {
          HttpResponse<String> answer = null;
          for (int attempt = 0;
              attempt < 50 && (answer == null || answer.statusCode() != 201);
              attempt++) {
            answer = create(base, token, intent);
          }
          assertThat(answer.statusCode()).as("final answer for %s", intent.key()).isEqualTo(201);
          String earlier = acknowledged.get(intent.key());
          if (earlier != null) {
            assertThat(answer.body())
                .as("acknowledged outcome of %s", intent.key())
                .isEqualTo(earlier);
          }
          JsonNode lookup = Json.parse(get(base, token, "/v1/operations/" + intent.key()).body());
          assertThat(lookup.get("state").asText()).isEqualTo("COMPLETED");
          assertThat(lookup.get("history")).as("history of %s", intent.key()).isNotEmpty();
        }
        JsonNode notes = Json.parse(get(base, token, "/v1/notes?limit=1000").body()).get("notes");
        assertThat(notes).as("one note per key").hasSize(intents.size());
        long withAttachments = intents.stream().filter(Intent::attachment).count();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (attachments.processed() < withAttachments && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertThat(attachments.processed()).as("attachments processed").isEqualTo(withAttachments);
        assertThat(attachments.duplicateEffects()).isZero();
        assertThat(attachments.deliveries()).isGreaterThanOrEqualTo(withAttachments);
        assertThat(acknowledged).as("some answers were heard before kills").isNotEmpty();
      } finally {
        server.destroy();
        server.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private void runClientsUntilKilled(
      URI base,
      String token,
      List<Intent> intents,
      Map<String, String> acknowledged,
      Process server,
      long killAfterMillis)
      throws Exception {
    AtomicBoolean killed = new AtomicBoolean();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int offset = c;
        running.add(
            clients.submit(
                () -> {
                  // Each client walks the unacknowledged keys from its own offset, newest first.
                  for (int i = intents.size() - 1 - offset; i >= 0 && !killed.get(); i -= CLIENTS) {
                    Intent intent = intents.get(i);
                    if (acknowledged.containsKey(intent.key())) {
                      continue;
                    }
                    try {
                      HttpResponse<String> answer = create(base, token, intent);
                      if (answer.statusCode() == 201) {
                        acknowledged.putIfAbsent(intent.key(), answer.body());
                        assertThat(answer.body()).isEqualTo(acknowledged.get(intent.key()));
                      }
                    } catch (IOException e) {
                      return null; // the server died under us: the outcome is unknown
                    }
                  }
                  return null;
                }));
      }
      Thread.sleep(killAfterMillis);
      killed.set(true);
      server.destroyForcibly(); // SIGKILL, wherever the server is
      for (Future<?> future : running) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      clients.shutdownNow();
    }
  }

  private HttpResponse<String> create(URI base, String token, Intent intent)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(base.resolve("/v1/tools/create-note"))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", intent.key())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(intent.body()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(URI base, String token, String path)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String token(Path ledger) throws Exception {
    return PackagedJar.token(ledger, "crash");
  }

  private Process serve(Path ledger, URI attachments) throws IOException {
    return new ProcessBuilder(
            java(),
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-jar",
            JAR.toString(),
            "serve",
            "--port",
            "0",
            "--db",
            ledger.toString(),
            "--attachments-url",
            attachments.toString())
        .redirectError(dir.resolve("server.err").toFile())
        .start();
  }

  private static URI awaitUrl(Process server) throws IOException {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    assertThat(first).as("the server's first line").isNotNull();
    Matcher m = URL.matcher(first);
    assertThat(m.find()).as(first).isTrue();
    return URI.create(m.group(1));
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
