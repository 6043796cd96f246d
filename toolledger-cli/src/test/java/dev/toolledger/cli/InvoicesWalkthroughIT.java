package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/invoices-walkthrough.md as a reader runs it, with the packaged {@code toolledger.jar}: the
 * toy invoice service in one process, {@code serve --tools-file examples/tools/invoices.yaml} in
 * another, a token from a third. The invoice service's own list is the proof.
 */
class InvoicesWalkthroughIT {
  private static final Path EXAMPLE = Path.of("..", "examples", "tools", "invoices.yaml");
  private static final Pattern INVOICES =
      Pattern.compile("^example invoice service on (http://127\\.0\\.0\\.1:\\d+)$");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final List<String> upstreamLog = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void stopProcesses() throws Exception {
    for (Process process : processes) {
      process.toHandle().destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void httpToolInFrontOfTheExampleServiceCreatesOneInvoiceAndReplaysIt() throws Exception {
    URI invoices = startExampleInvoices();
    Path tools = dir.resolve("invoices.yaml");
    String example = Files.readString(EXAMPLE);
    assertThat(example).contains("127.0.0.1:8089");
    Files.writeString(tools, example.replace("127.0.0.1:8089", invoices.getAuthority()));
    Path db = dir.resolve("ledger.db");
    URI ledger = serve(db, "--tools-file", tools.toString());
    String token = token(db);
    String invoice = "{\"customer\":\"c-42\",\"amount\":1500}";

    HttpResponse<String> first = createInvoice(ledger, token, "inv-1", invoice);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).contains("false");
    JsonNode created = Json.parse(first.body());
    assertThat(created.get("invoice").asText()).startsWith("inv_");
    assertThat(created.get("customer").asText()).isEqualTo("c-42");
    assertThat(created.get("amount").asLong()).isEqualTo(1500);
    assertThat(created.get("currency").asText()).isEqualTo("EUR");

    HttpResponse<String> retry = createInvoice(ledger, token, "inv-1", invoice);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(retry.body()).isEqualTo(first.body());

    JsonNode listed = Json.parse(get(invoices.resolve("/invoices")).body());
    assertThat(listed.get("count").asInt()).isEqualTo(1);
    assertThat(listed.get("invoices").get(0)).isEqualTo(created);

    HttpResponse<String> changed =
        createInvoice(ledger, token, "inv-1", "{\"customer\":\"c-42\",\"amount\":9999}");
    assertThat(changed.statusCode()).isEqualTo(422);
    assertThat(Json.parse(changed.body()).get("type").asText())
        .isEqualTo("https://toolledger.dev/problems/idempotency-key-reused");
    assertThat(Json.parse(get(invoices.resolve("/invoices")).body()).get("count").asInt())
        .isEqualTo(1);
    // The retry and the refused change never reached the service: it was called once, and with
    // the operation's own downstream key, not the caller's.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (upstreamLog.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(upstreamLog).filteredOn(line -> line.startsWith("POST ")).hasSize(1);
    assertThat(upstreamLog.get(0)).contains("created").contains("Idempotency-Key tl2-");
  }

  @Test
  void exampleServiceRefusesBadBodiesAndAnswersARepeatedKeyWithTheSameInvoice() throws Exception {
    URI invoices = startExampleInvoices();
    URI create = invoices.resolve("/customers/c-42/invoices");

    HttpResponse<String> first = post(create, "k-1", "{\"amount\":1500,\"currency\":\"EUR\"}");
    HttpResponse<String> again = post(create, "k-1", "{\"amount\":1500,\"currency\":\"EUR\"}");
    HttpResponse<String> otherAmount = post(create, "k-1", "{\"amount\":1,\"currency\":\"EUR\"}");
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(otherAmount.statusCode()).isEqualTo(422);

    assertThat(post(create, "k-2", "not json").statusCode()).isEqualTo(400);
    assertThat(post(create, "k-2", "[1500]").statusCode()).isEqualTo(400);
    for (String bad :
        List.of(
            "{\"currency\":\"EUR\"}",
            "{\"amount\":0,\"currency\":\"EUR\"}",
            "{\"amount\":1.5,\"currency\":\"EUR\"}",
            "{\"amount\":\"1500\",\"currency\":\"EUR\"}",
            "{\"amount\":1500,\"currency\":\"euro\"}",
            "{\"amount\":1500,\"currency\":\"EUR\",\"note\":\"x\"}")) {
      HttpResponse<String> refused = post(create, "k-2", bad);
      assertThat(refused.statusCode()).as(bad).isEqualTo(422);
      assertThat(Json.parse(refused.body()).get("error").asText()).as(bad).isNotBlank();
    }

    HttpResponse<String> found = get(invoices.resolve("/invoices/by-key/k-1"));
    assertThat(found.statusCode()).isEqualTo(200);
    assertThat(found.body()).isEqualTo(first.body());
    assertThat(get(invoices.resolve("/invoices/by-key/k-2")).statusCode()).isEqualTo(404);
    assertThat(Json.parse(get(invoices.resolve("/invoices")).body()).get("count").asInt())
        .isEqualTo(1);
  }

  /** Starts {@code toolledger example-invoices --port 0} and returns its base URI. */
  private URI startExampleInvoices() throws Exception {
    Process process =
        PackagedJar.start(dir.resolve("invoices.err"), "example-invoices", "--port", "0");
    processes.add(process);
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    assertThat(first).as("first line of example-invoices").isNotNull();
    Matcher m = INVOICES.matcher(first);
    assertThat(m.matches()).as(first).isTrue();
    Thread reader =
        new Thread(
            () -> {
              try {
                for (String line; (line = lines.readLine()) != null; ) {
                  upstreamLog.add(line);
                }
              } catch (IOException e) {
                // The process ended.
              }
            },
            "example-invoices-stdout");
    reader.setDaemon(true);
    reader.start();
    return URI.create(m.group(1));
  }

  private URI serve(Path db, String... more) throws Exception {
    Process server = PackagedJar.serve(db, dir.resolve("server.err"), more);
    processes.add(server);
    return PackagedJar.servingUri(server);
  }

  private static String token(Path db) throws Exception {
    return PackagedJar.token(db, "acme");
  }

  private static HttpResponse<String> createInvoice(
      URI ledger, String token, String key, String body) {
    return send(
        HttpRequest.newBuilder(ledger.resolve("/v1/tools/create-invoice"))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private static HttpResponse<String> post(URI uri, String key, String body) {
    return send(
        HttpRequest.newBuilder(uri)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private static HttpResponse<String> get(URI uri) {
    return send(HttpRequest.newBuilder(uri).GET().build());
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
