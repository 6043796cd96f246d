package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.server.RawHttp.Response;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Generated bad input against the real HTTP parsers: header values, percent-encoded paths and JSON
 * bodies (deep nesting, huge numbers, invalid UTF-8, duplicate names). Whatever arrives gets a
 * definitive answer: a recorded outcome, or a 4xx problem document. Never a 5xx, never a stack
 * trace, and an operation is recorded only when the answer says it executed.
 */
class RequestParsingPropertiesTest {
  static Path dir;
  static ServerFixture fixture;
  static String token;

  /**
   * A tenant that never creates anything: the fuzzed creates of {@code acme} record operations
   * under generated keys (short ones among them), and a lookup of one of those would rightly answer
   * 200. This tenant's lookups must find nothing, whatever the key.
   */
  static String emptyTenantToken;

  @BeforeContainer
  static void start() throws Exception {
    dir = Files.createTempDirectory("toolledger-properties");
    fixture = ServerFixture.start(dir);
    token = fixture.token("acme");
    emptyTenantToken = fixture.token("nobody-creates");
  }

  @AfterContainer
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** Sends a create-note request built from raw parts and checks the answer's shape. */
  static Response post(String path, String keyHeader, String authorization, byte[] body)
      throws Exception {
    long before = fixture.operations();
    StringBuilder head = new StringBuilder();
    head.append("POST ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    head.append("Content-Type: application/json\r\n");
    if (authorization != null) {
      head.append("Authorization: ").append(authorization).append("\r\n");
    }
    if (keyHeader != null) {
      head.append("Idempotency-Key: ").append(keyHeader).append("\r\n");
    }
    head.setLength(head.length() - 2);
    Response response = RawHttp.exchange(fixture.uri(), RawHttp.ascii(head.toString()), body);
    assertDefinitive(response);
    boolean executed =
        response.status() == 201 && "false".equals(response.header("Idempotent-Replayed"));
    assertThat(fixture.operations())
        .as("an operation is recorded only by an answer that says it executed: %s", response)
        .isEqualTo(before + (executed ? 1 : 0));
    return response;
  }

  static void assertDefinitive(Response response) {
    assertThat(response.status()).as(response.head()).isBetween(200, 499);
    if (response.status() >= 400) {
      assertThat(response.isProblem()).as(response.head()).isTrue();
      assertThat(response.body()).contains("\"type\":\"https://toolledger.dev/problems/");
    }
    assertThat(response.body())
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain("java.");
  }

  static byte[] body(String title) {
    return ("{\"title\":" + title + "}").getBytes(StandardCharsets.UTF_8);
  }

  @Provide
  Arbitrary<String> headerValues() {
    // Any byte a header line can carry (no CR or LF, which would end the line).
    return Arbitraries.strings()
        .withCharRange('\u0000', '\u00ff')
        .excludeChars('\r', '\n')
        .ofMinLength(0)
        .ofMaxLength(300);
  }

  @Property(tries = 150)
  void anyIdempotencyKeyGetsARecordedOutcomeOrAProblem(@ForAll("headerValues") String key)
      throws Exception {
    Response response = post("/v1/tools/create-note", key, "Bearer " + token, body("\"fuzzed\""));
    assertThat(response.status()).isIn(201, 400);
  }

  @Property(tries = 100)
  void anyAuthorizationGetsAProblemAndChangesNothing(@ForAll("headerValues") String authorization)
      throws Exception {
    Response response =
        post("/v1/tools/create-note", "auth-fuzz", authorization, body("\"fuzzed\""));
    assertThat(response.status()).isIn(400, 401);
  }

  @Provide
  Arbitrary<String> pathSegments() {
    return Arbitraries.strings().all().ofMinLength(0).ofMaxLength(80);
  }

  @Property(tries = 150)
  void anyToolNameInThePathGetsADefinitiveAnswer(@ForAll("pathSegments") String segment)
      throws Exception {
    String encoded = URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    post("/v1/tools/" + encoded, "path-fuzz", "Bearer " + token, body("\"fuzzed\""));
  }

  @Property(tries = 150)
  void anyOperationKeyInALookupPathGetsADefinitiveAnswer(@ForAll("pathSegments") String segment)
      throws Exception {
    String encoded = URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    String head =
        "GET /v1/operations/"
            + encoded
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + emptyTenantToken;
    Response response = RawHttp.exchange(fixture.uri(), RawHttp.ascii(head), new byte[0]);
    assertDefinitive(response);
    assertThat(response.status()).isIn(400, 404);
  }

  @Provide
  Arbitrary<byte[]> jsonBodies() {
    Arbitrary<byte[]> deep =
        Arbitraries.integers().between(1, 200_000).map(n -> body("[".repeat(n) + "]".repeat(n)));
    Arbitrary<byte[]> deepObjects =
        Arbitraries.integers()
            .between(1, 50_000)
            .map(n -> body("{\"a\":".repeat(n) + "1" + "}".repeat(n)));
    Arbitrary<byte[]> hugeNumbers =
        Arbitraries.of(
                "1e999999",
                "-1e999999",
                "123456789012345678901234567890123456789012345678901234567890",
                "1" + "0".repeat(5000),
                "0." + "0".repeat(5000) + "1",
                "NaN",
                "Infinity")
            .map(n -> ("{\"title\":\"n\",\"body\":" + n + "}").getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> duplicates =
        Arbitraries.strings()
            .alpha()
            .ofMinLength(1)
            .ofMaxLength(10)
            .map(
                s ->
                    ("{\"title\":\"" + s + "\",\"title\":\"" + s + "\"}")
                        .getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> invalidUtf8 =
        Combinators.combine(
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(8),
                Arbitraries.strings().alpha().ofMaxLength(10))
            .as(
                (bad, text) -> {
                  ByteArrayOutputStream out = new ByteArrayOutputStream();
                  out.writeBytes(("{\"title\":\"" + text).getBytes(StandardCharsets.UTF_8));
                  for (byte b : bad) {
                    out.write(b | 0x80); // high bytes only: most sequences are not valid UTF-8
                  }
                  out.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
                  return out.toByteArray();
                });
    Arbitrary<byte[]> anyBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    Arbitrary<byte[]> anyText =
        Arbitraries.strings().all().ofMaxLength(200).map(s -> s.getBytes(StandardCharsets.UTF_8));
    return Arbitraries.oneOf(
        deep, deepObjects, hugeNumbers, duplicates, invalidUtf8, anyBytes, anyText);
  }

  @Property(tries = 200)
  void anyBodyGetsARecordedOutcomeOrAProblem(@ForAll("jsonBodies") byte[] body) throws Exception {
    Response response =
        post(
            "/v1/tools/create-note",
            "body-fuzz-" + java.util.UUID.randomUUID(),
            "Bearer " + token,
            body);
    assertThat(response.status()).isIn(201, 400, 413, 415, 422);
  }
}
