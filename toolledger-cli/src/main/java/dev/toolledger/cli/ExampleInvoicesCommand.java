package dev.toolledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code toolledger example-invoices}: a toy invoice service to point an http tool at (see
 * examples/tools/invoices.yaml and docs/invoices-walkthrough.md). It keeps its invoices in memory
 * and forgets them when stopped; it is not part of the ledger and not a product.
 */
@Command(
    name = "example-invoices",
    mixinStandardHelpOptions = true,
    description = {
      "A toy invoice service on 127.0.0.1 for trying ToolLedger's http tools (see"
          + " examples/tools/invoices.yaml); not a product: invoices live in memory and are gone"
          + " when it stops.",
      "POST /customers/{customer}/invoices with {\"amount\": N, \"currency\": \"EUR\"} creates an"
          + " invoice, one per Idempotency-Key header; GET /invoices/by-key/{key} finds it;"
          + " GET /invoices lists them all. Runs until stopped (Ctrl-C)."
    })
final class ExampleInvoicesCommand implements Callable<Integer> {
  static final int DEFAULT_PORT = 8089;

  @Option(
      names = "--port",
      description = "Port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).",
      defaultValue = "" + DEFAULT_PORT)
  int port;

  @Override
  public Integer call() throws Exception {
    InvoiceService service = InvoiceService.start(port, System.out);
    CountDownLatch stopped = StopSignal.onStop("example-invoices-shutdown", service::close);
    System.out.println("example invoice service on http://127.0.0.1:" + service.port());
    System.out.flush();
    stopped.await();
    return 0;
  }

  /**
   * The service itself: one thread (the JDK server's dispatcher) handles every request, so the
   * invoices need no further locking. A repeated Idempotency-Key answers the invoice it already
   * made; the same key with a different invoice is refused with 422, as payment APIs do.
   */
  static final class InvoiceService implements AutoCloseable {
    private static final int MAX_BODY_BYTES = 16 * 1024;
    private static final int MAX_KEY_LENGTH = 255;
    private static final long MAX_AMOUNT = 1_000_000_000L;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private final HttpServer server;
    private final PrintStream log;
    private final List<ObjectNode> invoices = new ArrayList<>();
    private final Map<String, ObjectNode> byKey = new LinkedHashMap<>();

    private InvoiceService(HttpServer server, PrintStream log) {
      this.server = server;
      this.log = log;
    }

    static InvoiceService start(int port, PrintStream log) throws IOException {
      HttpServer server;
      try {
        server =
            HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
      } catch (BindException e) {
        throw new BindException(
            "cannot listen on 127.0.0.1:"
                + port
                + " ("
                + e.getMessage()
                + "); choose another --port and put the same port into the tools file's URLs");
      }
      InvoiceService service = new InvoiceService(server, log);
      server.createContext("/", service::handle);
      server.start();
      return service;
    }

    int port() {
      return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
      try {
        String method = exchange.getRequestMethod();
        String[] path = exchange.getRequestURI().getRawPath().split("/", -1);
        Reply reply;
        if (path.length == 4 && path[1].equals("customers") && path[3].equals("invoices")) {
          reply = method.equals("POST") ? create(exchange, path[2]) : notAllowed("POST");
        } else if (path.length == 2 && path[1].equals("invoices")) {
          reply = method.equals("GET") ? list() : notAllowed("GET");
        } else if (path.length == 4 && path[1].equals("invoices") && path[2].equals("by-key")) {
          reply = method.equals("GET") ? byKey(decode(path[3])) : notAllowed("GET");
        } else {
          reply = error(404, "no such resource; see toolledger example-invoices --help");
        }
        if (reply.allow() != null) {
          exchange.getResponseHeaders().set("Allow", reply.allow());
        }
        byte[] bytes = Json.write(reply.body()).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(reply.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
        if (reply.note() != null) {
          log.println(method + " " + exchange.getRequestURI().getRawPath() + " -> " + reply.note());
          log.flush();
        }
      } finally {
        exchange.close();
      }
    }

    private Reply create(HttpExchange exchange, String rawCustomer) throws IOException {
      String customer = decode(rawCustomer);
      if (customer == null || customer.isBlank() || customer.length() > 100) {
        return error(422, "the customer in the path must be 1 to 100 characters");
      }
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      if (key != null && (key.isBlank() || key.length() > MAX_KEY_LENGTH)) {
        return error(400, "the Idempotency-Key header must be 1 to 255 characters");
      }
      byte[] raw;
      try (InputStream in = exchange.getRequestBody()) {
        raw = in.readNBytes(MAX_BODY_BYTES + 1);
      }
      if (raw.length > MAX_BODY_BYTES) {
        return error(413, "the body is larger than " + MAX_BODY_BYTES + " bytes");
      }
      JsonNode body;
      try {
        body = Json.parse(raw);
      } catch (MalformedJsonException e) {
        return error(400, e.getMessage());
      }
      if (!body.isObject()) {
        return error(
            400, "the body must be a JSON object like {\"amount\": 1500, \"currency\": \"EUR\"}");
      }
      for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!name.equals("amount") && !name.equals("currency")) {
          return error(422, "unknown field " + name + "; only amount and currency are accepted");
        }
      }
      JsonNode amount = body.path("amount");
      if (!amount.isIntegralNumber()
          || !amount.canConvertToLong()
          || amount.asLong() < 1
          || amount.asLong() > MAX_AMOUNT) {
        return error(422, "amount must be a whole number from 1 to " + MAX_AMOUNT);
      }
      JsonNode currency = body.path("currency");
      if (!currency.isTextual() || !CURRENCY.matcher(currency.asText()).matches()) {
        return error(422, "currency must be three capital letters, like EUR");
      }
      ObjectNode invoice =
          Json.object()
              .put("customer", customer)
              .put("amount", amount.asLong())
              .put("currency", currency.asText());
      if (key != null && byKey.containsKey(key)) {
        ObjectNode earlier = byKey.get(key);
        ObjectNode withoutId = earlier.deepCopy();
        withoutId.remove("invoice");
        if (!withoutId.equals(invoice)) {
          return error(422, "this Idempotency-Key was used for a different invoice");
        }
        return new Reply(
            201,
            earlier,
            "201 "
                + earlier.get("invoice").asText()
                + " again (same Idempotency-Key, no new invoice)",
            null);
      }
      ObjectNode created = Json.object().put("invoice", "inv_" + (invoices.size() + 1));
      created.setAll(invoice);
      invoices.add(created);
      if (key != null) {
        byKey.put(key, created);
      }
      return new Reply(
          201,
          created,
          "201 created "
              + created.get("invoice").asText()
              + (key == null ? " (no Idempotency-Key)" : " (Idempotency-Key " + key + ")"),
          null);
    }

    private Reply list() {
      ObjectNode body = Json.object().put("count", invoices.size());
      ArrayNode all = body.putArray("invoices");
      invoices.forEach(all::add);
      return new Reply(200, body, null, null);
    }

    private Reply byKey(String key) {
      ObjectNode invoice = key == null ? null : byKey.get(key);
      if (invoice == null) {
        return new Reply(
            404,
            errorBody("no invoice with this Idempotency-Key"),
            "404 (lookup: no such key)",
            null);
      }
      return new Reply(200, invoice, "200 " + invoice.get("invoice").asText() + " (lookup)", null);
    }

    private static String decode(String raw) {
      try {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }

    private static Reply notAllowed(String allow) {
      return new Reply(405, errorBody("method not allowed; use " + allow), null, allow);
    }

    private static Reply error(int status, String message) {
      return new Reply(status, errorBody(message), status + " " + message, null);
    }

    private static ObjectNode errorBody(String message) {
      return Json.object().put("error", message);
    }

    /** An answer: its status and JSON body, the line for the console, the Allow header. */
    private record Reply(int status, JsonNode body, String note, String allow) {}

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
