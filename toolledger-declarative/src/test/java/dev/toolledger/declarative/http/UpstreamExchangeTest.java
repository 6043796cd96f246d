package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The upstream client against a scripted HTTP/1.1 server on a real socket: what it does with
 * connections, slow answers and dropped ones, which the tool's guarantees rest on.
 */
class UpstreamExchangeTest {
  private static final byte[] ANSWER = "{\"id\":\"inv_1\"}".getBytes(StandardCharsets.UTF_8);

  private ServerSocket server;
  private final ExecutorService connections = Executors.newCachedThreadPool();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private volatile Script script = Script.ANSWER;

  private enum Script {
    /** Answers every request on the connection, keeping it open. */
    ANSWER,
    /** Sends the headers, then one byte of the body every 200 ms. */
    TRICKLE,
    /** Reads the request, then closes the connection without a word. */
    DROP
  }

  @BeforeEach
  void start() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    connections.execute(
        () -> {
          while (!server.isClosed()) {
            try {
              Socket socket = server.accept();
              accepted.incrementAndGet();
              connections.execute(() -> serve(socket));
            } catch (IOException e) {
              return;
            }
          }
        });
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    connections.shutdownNow();
    connections.awaitTermination(5, TimeUnit.SECONDS);
  }

  private void serve(Socket socket) {
    try (socket) {
      socket.setTcpNoDelay(true);
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      OutputStream out = socket.getOutputStream();
      while (true) {
        int length = readRequestHead(in);
        if (length < 0) {
          return;
        }
        in.skip(length);
        requests.incrementAndGet();
        switch (script) {
          case ANSWER -> {
            byte[] head = head(ANSWER.length);
            byte[] whole = Arrays.copyOf(head, head.length + ANSWER.length);
            System.arraycopy(ANSWER, 0, whole, head.length, ANSWER.length);
            out.write(whole);
            out.flush();
          }
          case TRICKLE -> {
            out.write(head(100));
            out.flush();
            for (int i = 0; i < 100; i++) {
              Thread.sleep(200);
              out.write('x');
              out.flush();
            }
          }
          case DROP -> {
            return;
          }
        }
      }
    } catch (IOException | InterruptedException e) {
      // The client went away, or the test is over.
    }
  }

  /** The request's Content-Length, or -1 at the end of the connection. */
  private static int readRequestHead(BufferedReader in) throws IOException {
    String line = in.readLine();
    if (line == null) {
      return -1;
    }
    int length = 0;
    while ((line = in.readLine()) != null && !line.isEmpty()) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).strip());
      }
    }
    return line == null ? -1 : length;
  }

  private static byte[] head(int length) {
    return ("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: "
            + length
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private Upstream.Call post() {
    return new Upstream.Call(
        "POST",
        URI.create("http://127.0.0.1:" + server.getLocalPort() + "/invoices"),
        List.of(new Header("Content-Type", "application/json")),
        "{\"amount\":1}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void callsShareOneKeptAliveConnection() throws Exception {
    Upstream upstream = new Upstream(Duration.ofSeconds(2), 1024);

    for (int i = 0; i < 20; i++) {
      Upstream.Answer answer = upstream.exchange(post(), Duration.ofSeconds(5));
      assertThat(answer.status()).isEqualTo(201);
      assertThat(answer.body()).isEqualTo(ANSWER);
      assertThat(answer.contentType()).contains("application/json");
    }

    assertThat(requests).hasValue(20);
    assertThat(accepted).hasValue(1);
  }

  @Test
  void answerThatTricklesInIsCutAtTheWholeTimeoutNotPerRead() {
    script = Script.TRICKLE;
    Upstream upstream = new Upstream(Duration.ofSeconds(2), 1024);
    long started = System.nanoTime();

    // Each byte arrives well within the timeout; the whole answer would take 20 s.
    assertThatThrownBy(() -> upstream.exchange(post(), Duration.ofMillis(800)))
        .isInstanceOf(HttpTimeoutException.class)
        .hasMessageContaining("800 ms");

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void droppedConnectionIsUncertainAndTheRequestIsNotSentAgain() throws Exception {
    script = Script.DROP;
    Upstream upstream = new Upstream(Duration.ofSeconds(2), 1024);

    assertThatThrownBy(() -> upstream.exchange(post(), Duration.ofSeconds(5)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);

    // A client that retried by itself would have sent it again on a new connection by now.
    Thread.sleep(300);
    assertThat(requests).hasValue(1);
    assertThat(accepted).hasValue(1);
  }

  @Test
  void closedPortIsCertainlyNothingSent() throws Exception {
    // A port bound but not listening refuses connections, and stays ours for the whole test: a
    // port freed by closing a server could be taken by another test's listener in between.
    try (Socket bound = new Socket()) {
      bound.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      Upstream upstream = new Upstream(Duration.ofSeconds(2), 1024);
      Upstream.Call call =
          new Upstream.Call(
              "POST",
              URI.create("http://127.0.0.1:" + bound.getLocalPort() + "/x"),
              List.of(),
              null);

      assertThatThrownBy(() -> upstream.exchange(call, Duration.ofSeconds(5)))
          .isInstanceOf(Upstream.NothingSent.class)
          .hasMessageContaining("refused");
    }
  }
}
