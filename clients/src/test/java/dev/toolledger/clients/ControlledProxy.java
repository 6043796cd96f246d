package dev.toolledger.clients;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import dev.toolledger.testkit.LossyProxy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The testkit's {@link LossyProxy} in front of the node, steered by the client suites (which run in
 * other processes) over a small loopback control API:
 *
 * <ul>
 *   <li>{@code POST /drop?count=N}: lose the answers of the next N tool calls (HTTP, or an MCP
 *       {@code tools/call}) after the server committed them;
 *   <li>{@code POST /hold}: hold the answer of the next tool call after the commit, until {@code
 *       POST /release}, which then loses it (the agent is killed in between);
 *   <li>{@code GET /stats}: {@code {"posts":N,"dropped":N,"held":N}}, tool calls that reached the
 *       server through the proxy, answers lost, answers being held.
 * </ul>
 */
final class ControlledProxy implements AutoCloseable {
  private final AtomicInteger dropNext = new AtomicInteger();
  private final AtomicInteger holdNext = new AtomicInteger();
  private final AtomicLong posts = new AtomicLong();
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicReference<CountDownLatch> release =
      new AtomicReference<>(new CountDownLatch(1));
  private final LossyProxy proxy;
  private final HttpServer control;

  ControlledProxy(URI upstream) throws IOException {
    DropPolicy policy = this::decide;
    this.proxy = LossyProxy.start(upstream, policy);
    this.control =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    control.setExecutor(Executors.newCachedThreadPool());
    control.createContext("/", this::handle);
    control.start();
  }

  private boolean decide(Exchange exchange) {
    if (!isToolCall(exchange)) {
      return false;
    }
    posts.incrementAndGet();
    if (holdNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      CountDownLatch latch = release.get();
      held.incrementAndGet();
      try {
        latch.await(120, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        held.decrementAndGet();
      }
      return true;
    }
    return dropNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  /** A tool call over HTTP, or an MCP {@code tools/call} of anything but {@code get-operation}. */
  private static boolean isToolCall(Exchange exchange) {
    if (!exchange.method().equals("POST")) {
      return false;
    }
    if (exchange.target().startsWith("/v1/tools/")) {
      return true;
    }
    return exchange.target().startsWith("/mcp")
        && exchange.requestBody().contains("\"tools/call\"")
        && !exchange.requestBody().contains("\"get-operation\"");
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String query = exchange.getRequestURI().getQuery();
    String answer = "{}";
    int status = 200;
    switch (exchange.getRequestMethod() + " " + path) {
      case "POST /drop" -> {
        int count = 1;
        if (query != null && query.startsWith("count=")) {
          count = Integer.parseInt(query.substring("count=".length()));
        }
        dropNext.set(count);
      }
      case "POST /hold" -> {
        release.set(new CountDownLatch(1));
        holdNext.set(1);
      }
      case "POST /release" -> release.get().countDown();
      case "POST /reset" -> {
        dropNext.set(0);
        holdNext.set(0);
        release.get().countDown();
      }
      case "GET /stats" ->
          answer =
              "{\"posts\":"
                  + posts.get()
                  + ",\"dropped\":"
                  + proxy.dropped()
                  + ",\"held\":"
                  + held.get()
                  + "}";
      default -> {
        status = 404;
        answer = "{\"error\":\"no such control\"}";
      }
    }
    byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  URI uri() {
    return proxy.uri();
  }

  URI controlUri() {
    return URI.create("http://127.0.0.1:" + control.getAddress().getPort());
  }

  @Override
  public void close() {
    release.get().countDown();
    control.stop(0);
    proxy.close();
  }
}
