package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.plugins.PluginRegistration;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow and stalled clients, with and without a token, on the API, {@code /mcp}, the console and
 * {@code /metrics}, over real sockets: however many there are, {@code /health} and a well-behaved
 * keyed create are answered, and each slow client is answered {@code 408} and closed once its body
 * timeout has passed. Before bodies were read without a thread, a few hundred such clients held
 * every one of the server's 200 threads in a blocking read (or in the drain of a refused request's
 * body) and {@code /health} went unanswered.
 *
 * <p>The bound on the answers is generous (a behaviour, not a benchmark): without the fix they do
 * not come at all while the slow clients hold the threads.
 */
class SlowClientsTest {
  private static final int SLOW_CLIENTS = 1000;
  private static final Duration BODY_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(5);

  @TempDir Path dir;

  @Test
  void thousandSlowBodiesLeaveHealthAndAKeyedCreateAnsweredAndAreCutOffAtTheirTimeout()
      throws Exception {
    Path file = dir.resolve("ledger.db");
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(
                SqliteOptions.builder(file)
                    .migrations(PluginRegistration.migrations(NotesTables.schema()))
                    .build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .plugin(NotesPlugin.serving(NotesTool.unlimited()))
                .serverConfig(
                    ServerConfig.builder()
                        .port(0)
                        .shutdownGrace(Duration.ZERO)
                        .bodyTimeout(BODY_TIMEOUT)
                        .build())
                .start()) {
      String token = app.tokens().issue(TenantId.of("acme"), "test").token();
      URI base = app.uri();
      String[] heads = {
        "POST /v1/tools/create-note HTTP/1.1\r\nContent-Type: application/json\r\n",
        "POST /v1/tools/create-note HTTP/1.1\r\nAuthorization: Bearer tl_000000000000_nope\r\n"
            + "Idempotency-Key: slow\r\nContent-Type: application/json\r\n",
        "POST /v1/tools/create-note HTTP/1.1\r\nAuthorization: Bearer "
            + token
            + "\r\nContent-Type: application/json\r\n",
        "POST /mcp HTTP/1.1\r\nAuthorization: Bearer "
            + token
            + "\r\nAccept: application/json, text/event-stream\r\n"
            + "Content-Type: application/json\r\n",
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n",
        "POST /console/api/resolve HTTP/1.1\r\nContent-Type: application/json\r\n",
        "GET /metrics HTTP/1.1\r\n",
      };
      List<Socket> slow = new ArrayList<>();
      try {
        long started = System.nanoTime();
        for (int i = 0; i < SLOW_CLIENTS; i++) {
          Socket socket = new Socket();
          socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 10_000);
          slow.add(socket);
          String head =
              heads[i % heads.length]
                  + (i % heads.length == 2 ? "Idempotency-Key: slow-" + i + "\r\n" : "")
                  + "Host: "
                  + base.getAuthority()
                  + "\r\nContent-Length: 60000\r\n\r\n{";
          socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
          socket.getOutputStream().flush();
        }
        // One more byte on every connection: the slow clients keep sending, just too slowly.
        for (Socket socket : slow) {
          socket.getOutputStream().write(' ');
          socket.getOutputStream().flush();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .as("the slow clients were all connected well within their body timeout")
            .isLessThan(BODY_TIMEOUT.dividedBy(2));

        CompletableFuture<Http.Reply> health =
            CompletableFuture.supplyAsync(
                () ->
                    Http.send(
                        HttpRequest.newBuilder(base.resolve("/health"))
                            .timeout(ANSWERED_WITHIN)
                            .GET()
                            .build()));
        CompletableFuture<Http.Reply> create =
            CompletableFuture.supplyAsync(
                () ->
                    Http.send(
                        HttpRequest.newBuilder(base.resolve("/v1/tools/create-note"))
                            .timeout(ANSWERED_WITHIN)
                            .header("Authorization", "Bearer " + token)
                            .header("Idempotency-Key", "well-behaved")
                            .header("Content-Type", "application/json")
                            .POST(
                                HttpRequest.BodyPublishers.ofString(
                                    "{\"title\":\"t\",\"body\":\"b\"}"))
                            .build()));
        assertThat(health.get(ANSWERED_WITHIN.toSeconds() * 2, TimeUnit.SECONDS).status())
            .isEqualTo(200);
        assertThat(create.get(ANSWERED_WITHIN.toSeconds() * 2, TimeUnit.SECONDS).status())
            .isEqualTo(201);

        // Past the body timeout, every kind of slow client is answered 408 and closed.
        for (int i = 0; i < heads.length; i++) {
          Socket socket = slow.get(i);
          socket.setSoTimeout((int) BODY_TIMEOUT.multipliedBy(3).toMillis());
          String answer = readToEnd(socket.getInputStream());
          assertThat(answer).as("slow client of kind %d", i).startsWith("HTTP/1.1 408 ");
          assertThat(answer).contains("Connection: close", "request-timeout");
        }
      } finally {
        for (Socket socket : slow) {
          socket.close();
        }
      }
      assertThat(Http.get(base, "/v1/operations/slow-2", token).status())
          .as("a slow client's keyed create recorded nothing")
          .isEqualTo(404);
    }
  }

  private static String readToEnd(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
  }

  @SuppressWarnings("unused")
  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.US_ASCII));
  }
}
