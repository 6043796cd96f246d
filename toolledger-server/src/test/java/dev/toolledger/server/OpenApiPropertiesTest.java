package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.schema.ParameterSchema;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.RawHttp.Response;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The OpenAPI document served at {@code /openapi.json} says exactly what the node accepts: requests
 * generated around the document's own schemas (the {@code Idempotency-Key} header, the operation
 * key in the path, the resolution body) are judged by those schemas and sent to a real node. One
 * valid by the document never meets a validation error; one invalid by it gets a 4xx the document
 * lists, as a problem document, and records nothing.
 */
class OpenApiPropertiesTest {
  private static final String TYPE = "https://toolledger.dev/problems/";
  private static final Set<String> VALIDATION_ERRORS =
      Set.of(
          TYPE + "invalid-idempotency-key",
          TYPE + "missing-idempotency-key",
          TYPE + "malformed-json",
          TYPE + "invalid-parameters",
          TYPE + "bad-request");

  static Path dir;
  static ServerFixture fixture;
  static String token;
  static JsonNode document;
  static final AtomicLong fresh = new AtomicLong();

  @BeforeContainer
  static void start() throws Exception {
    dir = Files.createTempDirectory("toolledger-openapi-properties");
    fixture = ServerFixture.start(dir);
    token =
        fixture
            .tokens
            .issue(TenantId.of("acme"), Scopes.of("tools:*", "read", "resolve"), "test")
            .token();
    document = Http.get(fixture.uri(), "/openapi.json", token).json();
  }

  @AfterContainer
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** The schema at {@code pointer} in the served document, with the document's components. */
  static ParameterSchema schemaAt(String pointer) {
    ObjectNode schema = Json.object();
    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    schema.put("$ref", "#" + pointer);
    schema.set("components", document.get("components").deepCopy());
    return ParameterSchema.compile(schema);
  }

  static boolean valid(String pointer, JsonNode value) {
    return schemaAt(pointer).validate(value) instanceof Validation.Valid;
  }

  static Response send(String method, String path, String extraHeaders, byte[] body) {
    String head =
        method
            + " "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + token
            + "\r\nContent-Type: application/json"
            + extraHeaders;
    return RawHttp.exchange(fixture.uri(), head.getBytes(StandardCharsets.ISO_8859_1), body);
  }

  static void validationError(Response response) {
    assertThat(response.status()).as(response.head()).isEqualTo(400);
    assertThat(response.isProblem()).isTrue();
    String type =
        Json.parse(response.body().getBytes(StandardCharsets.UTF_8)).path("type").asText();
    assertThat(VALIDATION_ERRORS).as(response.body()).contains(type);
    assertThat(document.at("/components/schemas/ProblemType/enum").toString()).contains(type);
  }

  static void noValidationError(Response response) {
    assertThat(response.status()).as(response.head() + "\n" + response.body()).isNotEqualTo(400);
    assertThat(response.status()).isLessThan(500);
  }

  // ---------------------------------------------------------------- Idempotency-Key

  @Provide
  Arbitrary<String> keyHeaders() {
    Arbitrary<String> visible =
        Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(260);
    Arbitrary<String> withSpaces =
        Arbitraries.strings().withCharRange(' ', '~').ofMinLength(1).ofMaxLength(40);
    Arbitrary<String> nonAscii =
        Arbitraries.strings().withCharRange('!', '\u00ff').ofMinLength(1).ofMaxLength(20);
    Arbitrary<String> lengths = Arbitraries.integers().between(250, 260).map(n -> "k".repeat(n));
    Arbitrary<String> quoted =
        Arbitraries.oneOf(visible, lengths)
            .map(key -> "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    Arbitrary<String> brokenQuotes = visible.map(key -> "\"" + key);
    return Arbitraries.oneOf(visible, withSpaces, nonAscii, lengths, quoted, brokenQuotes)
        .map(String::strip)
        .filter(value -> !value.isEmpty());
  }

  @Property(tries = 150)
  void aKeyHeaderValidByTheDocumentIsAcceptedAndAnInvalidOneIsRefused(
      @ForAll("keyHeaders") String header) throws Exception {
    boolean valid =
        valid(
            "/components/parameters/IdempotencyKey/schema",
            Json.mapper().getNodeFactory().textNode(header));
    long before = fixture.operations();
    Response response =
        send(
            "POST",
            "/v1/tools/create-note",
            "\r\nIdempotency-Key: " + header,
            "{\"title\":\"same\",\"body\":\"same\"}".getBytes(StandardCharsets.UTF_8));
    if (valid) {
      noValidationError(response);
      assertThat(response.status()).as(response.body()).isEqualTo(201);
    } else {
      validationError(response);
      assertThat(fixture.operations()).isEqualTo(before);
    }
  }

  // ---------------------------------------------------------------- the key in the path

  @Provide
  Arbitrary<String> pathKeys() {
    return Arbitraries.oneOf(
        Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(260),
        Arbitraries.strings().withCharRange(' ', '\u00ff').ofMinLength(1).ofMaxLength(12),
        Arbitraries.of(".", "..", "\\", "a\\b", ";", "a;b", "%", "?", "#", "/"));
  }

  static String encode(String key) {
    StringBuilder out = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xFF);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-') {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xFF));
      }
    }
    return out.toString();
  }

  @Property(tries = 150)
  void aPathKeyValidByTheDocumentIsLookedUpAndResolvedAndAnInvalidOneIsRefused(
      @ForAll("pathKeys") String key) {
    boolean valid =
        valid("/components/schemas/OperationKey", Json.mapper().getNodeFactory().textNode(key));
    Response lookup = send("GET", "/v1/operations/" + encode(key), "", new byte[0]);
    Response inquiry =
        send("POST", "/v1/operations/" + encode(key) + "/resolve", "", "{}".getBytes());
    if (valid) {
      noValidationError(lookup);
      assertThat(lookup.status()).isIn(200, 404);
      noValidationError(inquiry);
      assertThat(inquiry.status()).isEqualTo(200);
    } else {
      validationError(lookup);
      validationError(inquiry);
    }
  }

  // ---------------------------------------------------------------- the resolution body

  @Provide
  Arbitrary<String> resolutions() {
    Arbitrary<String> resolution =
        Arbitraries.of(
            null, "\"COMPLETED\"", "\"NOT_EXECUTED\"", "\"UNKNOWN\"", "5", "null", "\"completed\"");
    Arbitrary<String> reason =
        Arbitraries.of(
            null,
            "\"\"",
            "\"   \"",
            "\"why\"",
            "\"" + "x".repeat(500) + "\"",
            "\"" + "x".repeat(501) + "\"",
            "\"" + "\uD83D\uDE00".repeat(300) + "\"",
            "\"" + "\uD83D\uDE00".repeat(501) + "\"",
            "7",
            "null");
    Arbitrary<String> response =
        Arbitraries.of(
            null,
            "{\"status\":201,\"body\":{\"id\":1}}",
            "{\"status\":201.0,\"body\":null}",
            "{\"status\":201.5,\"body\":1}",
            "{\"status\":199,\"body\":1}",
            "{\"status\":600,\"body\":1}",
            "{\"status\":\"201\",\"body\":1}",
            "{\"status\":201}",
            "{\"body\":1}",
            "\"text\"");
    Arbitrary<String> extra = Arbitraries.of(null, "\"note\":\"x\"");
    return Combinators.combine(resolution, reason, response, extra)
        .as(
            (r, why, out, more) -> {
              StringBuilder json = new StringBuilder("{");
              if (r != null) {
                json.append("\"resolution\":").append(r).append(',');
              }
              if (why != null) {
                json.append("\"reason\":").append(why).append(',');
              }
              if (out != null) {
                json.append("\"response\":").append(out).append(',');
              }
              if (more != null) {
                json.append(more).append(',');
              }
              if (json.length() > 1) {
                json.setLength(json.length() - 1);
              }
              return json.append('}').toString();
            });
  }

  @Property(tries = 200)
  void aResolutionValidByTheDocumentMeetsNoValidationErrorAndAnInvalidOneIsRefused(
      @ForAll("resolutions") String body) throws Exception {
    boolean valid =
        valid("/components/schemas/Resolution", Json.parse(body.getBytes(StandardCharsets.UTF_8)));
    String key = "resolve-" + fresh.incrementAndGet();
    long before = fixture.operations();
    Response response =
        send(
            "POST",
            "/v1/operations/" + key + "/resolve",
            "",
            body.getBytes(StandardCharsets.UTF_8));
    if (valid) {
      noValidationError(response);
      // A key never seen: an inquiry fences it, a resolution finds nothing to resolve.
      assertThat(response.status()).as(body).isIn(200, 404);
    } else {
      validationError(response);
      assertThat(fixture.operations()).as(body).isEqualTo(before);
    }
  }
}
