package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.history.Answer;
import dev.toolledger.testkit.history.History;
import dev.toolledger.testkit.history.Verdict;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to the packaged node under load: the calls it admitted finish and are recorded, calls
 * that arrive while it drains are answered {@code 503 node-stopping} with {@code Retry-After}
 * before anything is read, and after a restart every acknowledged key replays. Three calls of an
 * HTTP tool are held in its upstream so that they are certainly in flight when the signal comes;
 * two clients create notes all along.
 */
class GracefulStopIT {
  private static final int HELD = 3;
  private static final int NOTE_CLIENTS = 2;
  private static final Duration BOUND = Duration.ofSeconds(15);

  @TempDir Path dir;

  @Test
  void sigtermFinishesCallsInFlightTurnsNewOnesAwayWithRetryAfterAndLosesNothing()
      throws Exception {
    History history = new History();
    HttpClient recording = RecordingHttpClient.over(history, Duration.ofSeconds(2));
    try (HeldUpstream upstream = HeldUpstream.start()) {
      Path db = dir.resolve("ledger.db");
      Path tools = dir.resolve("tools.yaml");
      Files.writeString(tools, toolsFile(upstream.port()));
      Process node =
          PackagedJar.serve(db, dir.resolve("node.err"), "--tools-file", tools.toString());
      ExecutorService clients = Executors.newCachedThreadPool();
      AtomicBoolean stopClients = new AtomicBoolean();
      List<Future<Answer>> held = new ArrayList<>();
      List<Future<?>> noteClients = new ArrayList<>();
      String token;
      Answer lateNote;
      Answer lateHeld;
      try {
        URI base = PackagedJar.servingUri(node);
        token = PackagedJar.token(db, "drain");
        for (int i = 0; i < HELD; i++) {
          String key = "held-" + i;
          held.add(clients.submit(() -> call(recording, base, token, "create-slow", key)));
        }
        for (int c = 0; c < NOTE_CLIENTS; c++) {
          int client = c;
          noteClients.add(
              clients.submit(
                  () -> {
                    for (int n = 0; !stopClients.get(); n++) {
                      call(recording, base, token, "create-note", "note-" + client + "-" + n);
                      Thread.sleep(20);
                    }
                    return null;
                  }));
        }
        assertThat(upstream.awaitArrived(HELD, Duration.ofSeconds(30)))
            .as("the held calls reached the upstream")
            .isTrue();

        node.toHandle().destroy(); // SIGTERM
        awaitDraining(base);
        lateNote = call(recording, base, token, "create-note", "late-note");
        lateHeld = call(recording, base, token, "create-slow", "late-held");
        upstream.release();

        for (Future<Answer> answer : held) {
          assertThat(answer.get(30, TimeUnit.SECONDS))
              .as("a call in flight when SIGTERM came gets its answer")
              .isInstanceOfSatisfying(
                  Answer.Heard.class,
                  heard -> {
                    assertThat(heard.status()).isEqualTo(201);
                    assertThat(heard.replayed()).isFalse();
                  });
        }
        assertThat(node.waitFor(30, TimeUnit.SECONDS)).as("the node stopped").isTrue();
      } finally {
        stopClients.set(true);
        for (Future<?> client : noteClients) {
          client.get(30, TimeUnit.SECONDS);
        }
        clients.shutdownNow();
        node.destroyForcibly();
      }
      for (Answer late : List.of(lateNote, lateHeld)) {
        assertThat(late)
            .as("a call that arrives during the drain")
            .isInstanceOfSatisfying(
                Answer.Heard.class,
                heard -> {
                  assertThat(heard.status()).isEqualTo(503);
                  assertThat(heard.recorded()).isFalse();
                  assertThat(Json.parse(heard.body()).get("type").asText())
                      .endsWith("/node-stopping");
                });
      }
      assertThat(upstream.arrivedTotal())
          .as("a call turned away never reached the tool")
          .isEqualTo(HELD);

      Process again =
          PackagedJar.serve(db, dir.resolve("again.err"), "--tools-file", tools.toString());
      try {
        URI base = PackagedJar.servingUri(again);
        Map<String, Integer> upstreamEffects = new HashMap<>();
        Map<String, String> keyByTitle = history.keyByParameter("title");
        upstream
            .effectsByTitle()
            .forEach((title, n) -> upstreamEffects.put(keyByTitle.get(title), n));
        Verdict verdict =
            HistoryAudit.audit(
                    history, base, token, "jdbc:sqlite:" + db, "drain", BOUND, upstreamEffects)
                .assertHolds();
        System.out.println("graceful stop: " + verdict.figures() + " " + turnedAway(history));
        assertThat(HistoryAudit.acknowledgedKeys(history)).contains("held-0", "held-1", "held-2");
        assertThat(HistoryAudit.lookup(base, token, "late-note"))
            .as("nothing of a turned-away call was recorded")
            .hasToString("NOT_FOUND");
      } finally {
        PackagedJar.stop(again);
      }
    }
  }

  /** How many calls heard 503 node-stopping, for the log. */
  private static String turnedAway(History history) {
    long n =
        history.calls().stream()
            .filter(c -> c.answer() instanceof Answer.Heard h && h.status() == 503)
            .count();
    return "turned-away=" + n;
  }

  /** Waits until the node answers {@code /health} with 503: it has begun to drain. */
  private static void awaitDraining(URI base) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      HttpResponse<String> health =
          http.send(
              HttpRequest.newBuilder(base.resolve("/health"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (health.statusCode() == 503) {
        assertThat(health.headers().firstValue("Retry-After")).contains("1");
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the node did not begin to drain within 20 s of SIGTERM");
  }

  private static Answer call(HttpClient http, URI base, String token, String tool, String key)
      throws InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/v1/tools/" + tool))
            .timeout(BOUND.minusSeconds(1))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"" + key + "\"}"))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Answer.Heard(
          response.statusCode(),
          response.body(),
          response.headers().firstValue("Idempotent-Replayed").isPresent(),
          response.headers().firstValue("Idempotent-Replayed").orElse("").equals("true"));
    } catch (IOException e) {
      return new Answer.None(e.getClass().getSimpleName());
    }
  }

  private static String toolsFile(int port) {
    return String.join(
        "\n",
        "tools:",
        "  - kind: http",
        "    name: create-slow",
        "    version: \"1\"",
        "    description: Calls an upstream that answers when the test lets it.",
        "    parameters:",
        "      type: object",
        "      required: [title]",
        "      additionalProperties: false",
        "      properties:",
        "        title: {type: string}",
        "    request:",
        "      method: POST",
        "      url: http://127.0.0.1:" + port + "/slow",
        "      timeout: 20s",
        "    idempotent-upstream: true",
        "    lease: 60s",
        "");
  }

  /**
   * An idempotent upstream that holds every request until {@link #release()}: one effect per
   * downstream key, counted per title.
   */
  private static final class HeldUpstream implements AutoCloseable {
    private final HttpServer server;
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger arrived = new AtomicInteger();
    private final Map<String, String> byDownstreamKey = new ConcurrentHashMap<>();
    private final Map<String, Integer> effects = new ConcurrentHashMap<>();

    private HeldUpstream(HttpServer server) {
      this.server = server;
    }

    static HeldUpstream start() throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      HeldUpstream upstream = new HeldUpstream(server);
      server.setExecutor(Executors.newCachedThreadPool());
      server.createContext(
          "/slow",
          exchange -> {
            upstream.arrived.incrementAndGet();
            String body =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            try {
              upstream.released.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            String title = Json.parse(body).get("title").asText();
            String downstreamKey = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            String answer =
                upstream.byDownstreamKey.computeIfAbsent(
                    downstreamKey,
                    k -> {
                      upstream.effects.merge(title, 1, Integer::sum);
                      return "{\"title\":\"" + title + "\",\"done\":true}";
                    });
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(201, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
          });
      server.start();
      return upstream;
    }

    int port() {
      return server.getAddress().getPort();
    }

    boolean awaitArrived(int n, Duration within) throws InterruptedException {
      long deadline = System.nanoTime() + within.toNanos();
      while (arrived.get() < n) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(10);
      }
      return true;
    }

    int arrivedTotal() {
      return arrived.get();
    }

    Map<String, Integer> effectsByTitle() {
      return Map.copyOf(effects);
    }

    void release() {
      released.countDown();
    }

    @Override
    public void close() {
      released.countDown();
      server.stop(0);
    }
  }
}
