package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.TenantId;
import dev.toolledger.declarative.ToolsFile;
import dev.toolledger.protocol.Json;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One call of the tool against a real scripted HTTP server, without the engine: how the request is
 * built and how each kind of answer is reported.
 */
class HttpToolCallTest {
  private static final EffectContext CONTEXT =
      new EffectContext(TenantId.of("acme"), "tl-0123456789abcdef", 1);

  @TempDir Path dir;
  HttpServer server;
  final AtomicReference<String> rawPath = new AtomicReference<>();
  final AtomicReference<String> requestBody = new AtomicReference<>();
  final AtomicReference<String> idempotencyKey = new AtomicReference<>();
  volatile int status = 201;
  volatile String contentType = "application/json";
  volatile byte[] answer = "{\"id\":\"inv_1\",\"total\":12.50}".getBytes(StandardCharsets.UTF_8);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
    server.createContext(
        "/",
        exchange -> {
          rawPath.set(exchange.getRequestURI().getRawPath());
          requestBody.set(
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          idempotencyKey.set(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
          exchange.getResponseHeaders().set("Content-Type", contentType);
          exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private ExternalTool tool(String request, String extra) throws Exception {
    String yaml =
        """
        tools:
          - kind: http
            name: create-invoice
            version: "1"
            parameters:
              type: object
              required: [customer, amount]
              properties:
                customer: {type: string}
                amount: {type: integer}
                note: {type: string}
            request:
              method: POST
              url: http://ADDRESS/customers/{customer}/invoices?amount={amount}
        """
                .replace("ADDRESS", "127.0.0.1:" + server.getAddress().getPort())
            + request.stripTrailing().indent(6)
            + extra.stripTrailing().indent(4);
    Path file = dir.resolve("tools.yaml");
    Files.writeString(file, yaml);
    return (ExternalTool) ToolsFile.load(file, Map.of(), List.of(new HttpToolKind())).get(0);
  }

  private static JsonNode params(String json) {
    return Json.parse(json);
  }

  @Test
  void parametersArePercentEncodedAsPathSegmentsAndTheBodyKeepsTheirTypes() throws Exception {
    ExternalTool tool =
        tool("body: {amount: \"{amount}\", memo: \"for {customer}\", note: \"{note}\"}", "");

    EffectResult result =
        tool.perform(CONTEXT, params("{\"customer\":\"a/b c?d#ä\",\"amount\":1500}"));

    assertThat(rawPath.get()).isEqualTo("/customers/a%2Fb%20c%3Fd%23%C3%A4/invoices");
    assertThat(Json.parse(requestBody.get()))
        .isEqualTo(Json.parse("{\"amount\":1500,\"memo\":\"for a/b c?d#ä\"}"));
    assertThat(idempotencyKey.get()).isEqualTo("tl-0123456789abcdef");
    assertThat(result).isInstanceOf(EffectResult.Done.class);
    EffectResult.Done done = (EffectResult.Done) result;
    assertThat(done.response().status()).isEqualTo(201);
    assertThat(done.response().body().get("total").decimalValue()).isEqualByComparingTo("12.50");
  }

  @Test
  void withoutABodyTemplateTheParametersAreSent() throws Exception {
    ExternalTool tool = tool("", "");

    tool.perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}"));

    assertThat(Json.parse(requestBody.get()))
        .isEqualTo(Json.parse("{\"customer\":\"c\",\"amount\":3}"));
  }

  @Test
  void answerThatIsNotJsonIsKeptAsText() throws Exception {
    contentType = "text/plain; charset=utf-8";
    answer = "created ✓".getBytes(StandardCharsets.UTF_8);

    EffectResult.Done done =
        (EffectResult.Done)
            tool("", "").perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}"));

    assertThat(done.response().body()).isEqualTo(Json.parse("{\"text\":\"created ✓\"}"));
  }

  @Test
  void emptyAnswerIsAnEmptyObject() throws Exception {
    answer = new byte[0];

    EffectResult.Done done =
        (EffectResult.Done)
            tool("", "").perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}"));

    assertThat(done.response().body()).isEqualTo(Json.object());
  }

  @Test
  void answerOverTheBodyLimitIsUncertain() throws Exception {
    answer = new byte[HttpTool.MAX_BODY_BYTES + 1];
    java.util.Arrays.fill(answer, (byte) 'x');
    ExternalTool tool = tool("", "");

    assertThatThrownBy(() -> tool.perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}")))
        .isInstanceOf(UpstreamAnswerTooLargeException.class);
  }

  @Test
  void statusInNoClassIsUncertain() throws Exception {
    status = 302;
    ExternalTool tool = tool("", "");

    assertThatThrownBy(() -> tool.perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}")))
        .isInstanceOf(UnclassifiedUpstreamStatusException.class);
  }

  @Test
  void declaredOutcomeClassesDecide() throws Exception {
    ExternalTool tool = tool("", "outcomes: {success: [201], business-error: [], not-done: [409]}");

    status = 409;
    assertThat(tool.perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}")))
        .isInstanceOf(EffectResult.NotDone.class);
    status = 422;
    assertThatThrownBy(() -> tool.perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}")))
        .isInstanceOf(UnclassifiedUpstreamStatusException.class);
  }

  @Test
  void noIdempotencyHeaderIsSentWhenTurnedOff() throws Exception {
    tool("idempotency-header: none", "")
        .perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}"));

    assertThat(idempotencyKey.get()).isNull();
  }

  @Test
  void lookupMapsFoundAbsentAndEverythingElse() throws Exception {
    ExternalTool tool =
        tool(
            "",
            "lookup:\n  url: http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/invoices/by-key/{downstreamKey}\n  found: [200]\n  absent: [404]");
    JsonNode p = params("{\"customer\":\"c\",\"amount\":3}");

    status = 200;
    DownstreamStatus found = tool.lookup(CONTEXT, p);
    assertThat(rawPath.get()).isEqualTo("/invoices/by-key/tl-0123456789abcdef");
    assertThat(found).isInstanceOf(DownstreamStatus.Found.class);
    assertThat(((DownstreamStatus.Found) found).response().status()).isEqualTo(200);
    status = 404;
    assertThat(tool.lookup(CONTEXT, p)).isInstanceOf(DownstreamStatus.Absent.class);
    status = 500;
    assertThat(tool.lookup(CONTEXT, p)).isInstanceOf(DownstreamStatus.Pending.class);
  }

  @Test
  void closedPortIsNotDone() throws Exception {
    ExternalTool tool = tool("", "");
    server.stop(0);

    EffectResult result = tool.perform(CONTEXT, params("{\"customer\":\"c\",\"amount\":3}"));

    assertThat(result).isInstanceOf(EffectResult.NotDone.class);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
  }
}
