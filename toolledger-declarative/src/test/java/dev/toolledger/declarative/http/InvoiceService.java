package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolledger.protocol.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The upstream of the tests: a small invoice service on a real socket that counts its own effects.
 * {@code POST /customers/{customer}/invoices} creates an invoice (once per {@code Idempotency-Key}
 * when told to be idempotent by it); {@code GET /invoices/by-key/{key}} looks one up by key. A test
 * scripts how the next calls end.
 */
final class InvoiceService implements AutoCloseable {
  enum Next {
    CREATE,
    /** Create, then answer only after {@link #slowBy} (a slow but successful call). */
    CREATE_SLOWLY,
    ANSWER_500,
    ANSWER_503,
    ANSWER_422,
    /** Create, then answer after the client has long given up. */
    CREATE_THEN_ANSWER_LATE,
    /** Create, then close the connection without answering: the answer is lost. */
    CREATE_THEN_DROP,
    /** Close the connection without creating anything or answering. */
    DROP_WITHOUT_CREATING
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final ConcurrentLinkedDeque<Next> script = new ConcurrentLinkedDeque<>();
  private final Map<String, ObjectNode> byKey = new LinkedHashMap<>();
  private final List<ObjectNode> invoices = new ArrayList<>();
  private final List<JsonNode> headers = new ArrayList<>();
  final AtomicInteger calls = new AtomicInteger();
  final AtomicInteger lookups = new AtomicInteger();
  volatile boolean idempotent;
  volatile boolean lookupAvailable = true;
  volatile long slowByMillis = 300;
  private final CountDownLatch closing = new CountDownLatch(1);

  private InvoiceService(boolean idempotent) throws IOException {
    this.idempotent = idempotent;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
    server.setExecutor(executor);
    server.createContext("/customers/", this::create);
    server.createContext("/invoices/by-key/", this::lookup);
    server.start();
  }

  static InvoiceService start(boolean idempotentByKey) throws IOException {
    return new InvoiceService(idempotentByKey);
  }

  /** {@code 127.0.0.1:port}. */
  String address() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** How the next calls end, in order; afterwards they create normally. */
  void then(Next... next) {
    script.addAll(List.of(next));
  }

  synchronized int invoiceCount() {
    return invoices.size();
  }

  synchronized List<JsonNode> receivedHeaders() {
    return List.copyOf(headers);
  }

  private void create(HttpExchange exchange) throws IOException {
    String[] path = exchange.getRequestURI().getRawPath().split("/");
    if (!exchange.getRequestMethod().equals("POST") || path.length != 4) {
      answer(exchange, 405, "{\"error\":\"method not allowed\"}");
      return;
    }
    JsonNode body = Json.parse(new String(exchange.getRequestBody().readAllBytes(), UTF8));
    calls.incrementAndGet();
    String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
    synchronized (this) {
      ObjectNode seen = Json.object();
      exchange.getRequestHeaders().forEach((name, values) -> seen.put(name, values.get(0)));
      headers.add(seen);
    }
    Next next = script.poll();
    next = next == null ? Next.CREATE : next;
    switch (next) {
      case ANSWER_500 -> answer(exchange, 500, "{\"error\":\"internal error\"}");
      case ANSWER_503 -> answer(exchange, 503, "{\"error\":\"try again later\"}");
      case ANSWER_422 -> answer(exchange, 422, "{\"error\":\"amount exceeds the credit limit\"}");
      case DROP_WITHOUT_CREATING -> exchange.close();
      default -> {
        String customer = java.net.URLDecoder.decode(path[2], UTF8);
        ObjectNode invoice = createOnce(key, customer, body);
        if (next == Next.CREATE_THEN_DROP) {
          exchange.close();
          return;
        }
        if (next == Next.CREATE_THEN_ANSWER_LATE) {
          pause(5_000);
        } else if (next == Next.CREATE_SLOWLY) {
          pause(slowByMillis);
        }
        answer(exchange, 201, Json.write(invoice));
      }
    }
  }

  private synchronized ObjectNode createOnce(String key, String customer, JsonNode body) {
    if (idempotent && key != null && byKey.containsKey(key)) {
      return byKey.get(key);
    }
    ObjectNode invoice =
        Json.object()
            .put("id", "inv_" + (invoices.size() + 1))
            .put("customer", customer)
            .put("amount", body.path("amount").asLong())
            .put("currency", body.path("currency").asText());
    invoices.add(invoice);
    if (key != null) {
      byKey.put(key, invoice);
    }
    return invoice;
  }

  private void lookup(HttpExchange exchange) throws IOException {
    lookups.incrementAndGet();
    if (!lookupAvailable) {
      answer(exchange, 503, "{\"error\":\"lookup unavailable\"}");
      return;
    }
    String key = exchange.getRequestURI().getRawPath().substring("/invoices/by-key/".length());
    ObjectNode invoice;
    synchronized (this) {
      invoice = byKey.get(java.net.URLDecoder.decode(key, UTF8));
    }
    if (invoice == null) {
      answer(exchange, 404, "{\"error\":\"no invoice with this key\"}");
    } else {
      answer(exchange, 200, Json.write(invoice));
    }
  }

  private void pause(long millis) {
    try {
      closing.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void answer(HttpExchange exchange, int status, String json) {
    try {
      byte[] bytes = json.getBytes(UTF8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      // The client gave up; the effect stands either way.
    } finally {
      exchange.close();
    }
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
