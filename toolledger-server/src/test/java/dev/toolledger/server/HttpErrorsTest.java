package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.server.Http.Reply;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every error of the API: its status, its stable problem type, and that it changed nothing. */
class HttpErrorsTest {
  private static final String TYPE = "https://toolledger.dev/problems/";
  private static final String NOTE = "{\"title\":\"Example note\"}";

  @TempDir Path dir;
  ServerFixture fixture;
  String acme;

  @BeforeEach
  void start() {
    fixture = ServerFixture.start(dir);
    acme = fixture.token("acme");
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private void assertProblem(Reply reply, int status, String slug) throws Exception {
    assertThat(reply.status()).isEqualTo(status);
    assertThat(reply.header("Content-Type")).startsWith("application/problem+json");
    assertThat(reply.problemType()).isEqualTo(TYPE + slug);
    assertThat(reply.json().get("status").asInt()).isEqualTo(status);
    assertThat(reply.json().get("title").asText()).isNotBlank();
    assertThat(reply.json().get("detail").asText()).isNotBlank();
    assertThat(reply.header("Idempotent-Replayed")).isNull();
    assertThat(fixture.notes()).isZero();
    assertThat(fixture.operations()).isZero();
  }

  @Test
  void missingKeyOnAWriteToolIs400() throws Exception {
    assertProblem(Http.createNote(fixture.uri(), acme, null, NOTE), 400, "missing-idempotency-key");
  }

  @ParameterizedTest
  @ValueSource(strings = {"has space", "\"unterminated", "\"a\"b\""})
  void invalidKeyIs400(String key) throws Exception {
    assertProblem(Http.createNote(fixture.uri(), acme, key, NOTE), 400, "invalid-idempotency-key");
  }

  @Test
  void nonAsciiKeyIs400() throws Exception {
    // Java's HTTP client will not send non-ASCII header bytes, so write the request by hand.
    byte[] body = NOTE.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String head =
        "POST /v1/tools/create-note HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
            + acme
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\nIdempotency-Key: caf";
    try (java.net.Socket socket =
        new java.net.Socket(fixture.uri().getHost(), fixture.uri().getPort())) {
      var out = socket.getOutputStream();
      out.write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.write(new byte[] {(byte) 0xC3, (byte) 0xA9, '\r', '\n', '\r', '\n'});
      out.write(body);
      out.flush();
      String response =
          new String(
              socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(response).startsWith("HTTP/1.1 400");
      assertThat(response).contains("https://toolledger.dev/problems/invalid-idempotency-key");
    }
    assertThat(fixture.notes()).isZero();
  }

  @Test
  void keyLongerThan255CharactersIs400() throws Exception {
    Reply reply = Http.createNote(fixture.uri(), acme, "k".repeat(256), NOTE);
    assertProblem(reply, 400, "invalid-idempotency-key");
    assertThat(reply.json().get("detail").asText()).contains("255");
  }

  @Test
  void keyOf255CharactersIsAccepted() throws Exception {
    assertThat(Http.createNote(fixture.uri(), acme, "k".repeat(255), NOTE).status()).isEqualTo(201);
  }

  @Test
  void quotedAndBareKeysNameTheSameOperation() throws Exception {
    Reply bare = Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    Reply quoted = Http.createNote(fixture.uri(), acme, "\"op-1\"", NOTE);

    assertThat(quoted.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(quoted.body()).isEqualTo(bare.body());
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void malformedJsonIs400() throws Exception {
    assertProblem(
        Http.createNote(fixture.uri(), acme, "op-1", "{\"title\": "), 400, "malformed-json");
  }

  @Test
  void duplicatePropertyNamesAreMalformed() throws Exception {
    assertProblem(
        Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"a\",\"title\":\"b\"}"),
        400,
        "malformed-json");
  }

  @Test
  void schemaViolationIs400AndNamesTheField() throws Exception {
    Reply reply = Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"\"}");
    assertProblem(reply, 400, "invalid-parameters");
    assertThat(reply.json().get("errors").get(0).get("field").asText()).isEqualTo("/title");
    assertThat(reply.json().get("detail").asText()).contains("/title");
  }

  @Test
  void titleOver200CharactersIs400() throws Exception {
    Reply reply =
        Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"" + "t".repeat(201) + "\"}");
    assertProblem(reply, 400, "invalid-parameters");
  }

  @Test
  void unknownFieldIs400AndNamesIt() throws Exception {
    Reply reply =
        Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"a\",\"tenant\":\"globex\"}");
    assertProblem(reply, 400, "invalid-parameters");
    assertThat(reply.json().get("errors").get(0).get("field").asText()).isEqualTo("/tenant");
  }

  @Test
  void nonObjectBodyIs400() throws Exception {
    assertProblem(Http.createNote(fixture.uri(), acme, "op-1", "[1,2]"), 400, "invalid-parameters");
  }

  @Test
  void rejectedParametersAreNotRecordedSoTheKeyMayBeUsedAgain() throws Exception {
    Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"\"}");

    Reply corrected = Http.createNote(fixture.uri(), acme, "op-1", NOTE);

    assertThat(corrected.status()).isEqualTo(201);
    assertThat(corrected.header("Idempotent-Replayed")).isEqualTo("false");
  }

  @Test
  void missingTokenIs401() throws Exception {
    Reply reply = Http.createNote(fixture.uri(), null, "op-1", NOTE);
    assertProblem(reply, 401, "unauthorized");
    assertThat(reply.header("WWW-Authenticate")).startsWith("Bearer");
  }

  @Test
  void unknownTokenIs401() throws Exception {
    assertProblem(
        Http.createNote(fixture.uri(), "tl_000000000000_notarealtoken", "op-1", NOTE),
        401,
        "unauthorized");
  }

  @Test
  void revokedTokenIs401() throws Exception {
    var issued = fixture.tokens.issue(TenantId.of("acme"), "soon revoked");
    fixture.store.revoke(issued.record().id(), Instant.now());

    assertProblem(
        Http.createNote(fixture.uri(), issued.token(), "op-1", NOTE), 401, "unauthorized");
  }

  @Test
  void unknownToolIs404() throws Exception {
    assertProblem(
        Http.post(fixture.uri(), "/v1/tools/delete-everything", acme, "op-1", "{}"),
        404,
        "unknown-tool");
  }

  @Test
  void unknownToolIs401BeforeAuthentication() throws Exception {
    assertProblem(
        Http.post(fixture.uri(), "/v1/tools/delete-everything", null, "op-1", "{}"),
        401,
        "unauthorized");
  }

  @Test
  void keyReusedWithOtherParametersIs422() throws Exception {
    Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    Reply reply = Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"Other\"}");

    assertThat(reply.status()).isEqualTo(422);
    assertThat(reply.problemType()).isEqualTo(TYPE + "idempotency-key-reused");
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void wrongContentTypeIs415() throws Exception {
    Reply reply =
        Http.post(
            fixture.uri(),
            "/v1/tools/create-note",
            acme,
            "op-1",
            "title=a",
            "Content-Type",
            "application/x-www-form-urlencoded");
    assertProblem(reply, 415, "unsupported-media-type");
  }

  @Test
  void bodyOverTheLimitIs413() throws Exception {
    String huge = "{\"title\":\"a\",\"body\":\"" + "b".repeat(70_000) + "\"}";
    assertProblem(Http.createNote(fixture.uri(), acme, "op-1", huge), 413, "payload-too-large");
  }

  @Test
  void oversizedBodiesAreAnswered413RatherThanResetMidUpload() throws Exception {
    // Answering before the body is read used to reset a few uploads, which a client then saw as a
    // lost connection (retryable) instead of the definitive 413.
    String huge = "{\"title\":\"a\",\"body\":\"" + "b".repeat(200_000) + "\"}";
    for (int i = 0; i < 100; i++) {
      Reply reply = Http.createNote(fixture.uri(), acme, "op-" + i, huge);
      assertThat(reply.status()).as("attempt %d", i).isEqualTo(413);
    }
    assertThat(fixture.operations()).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "POST /v1/tools/create-note HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ACME"
            + "\r\nContent-Type: application/json", // no Idempotency-Key: 400
        "POST /v1/tools/create-note HTTP/1.1\r\nHost: localhost\r\nIdempotency-Key: k"
            + "\r\nContent-Type: application/json", // no token: 401
        "POST /v1/tools/create-note HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ACME"
            + "\r\nIdempotency-Key: k\r\nContent-Type: application/json"
            + "\r\nOrigin: http://evil.example", // a foreign origin: 403
        "POST /console/api/operations/x/resolve HTTP/1.1\r\nHost: localhost"
            + "\r\nContent-Type: application/json" // no operator token: 401
      })
  void aRefusalAnsweredBeforeItsBodyArrivedLeavesTheKeptAliveConnectionUsable(String head)
      throws Exception {
    // A client pools the connection once it has the answer; if the server closed it because the
    // refused request's body was still unread, the client's next POST died on it ("header parser
    // received no bytes"). One filter reads the rest for every endpoint.
    int[] statuses =
        RawHttp.refusedThenNextOnSameConnection(
            fixture.uri(), head.replace("ACME", acme), NOTE.getBytes(StandardCharsets.UTF_8));

    assertThat(statuses[0]).as("the refusal").isBetween(400, 403);
    assertThat(statuses[1]).as("the next request on the same connection").isEqualTo(200);
    assertThat(fixture.operations()).isZero();
  }

  @Test
  void wrongMethodIs405() throws Exception {
    Reply reply = Http.get(fixture.uri(), "/v1/tools/create-note", acme);
    assertProblem(reply, 405, "method-not-allowed");
    assertThat(reply.header("Allow")).isEqualTo("POST");
  }

  @Test
  void unknownPathIs404() throws Exception {
    assertProblem(Http.get(fixture.uri(), "/v2/whatever", acme), 404, "not-found");
  }

  @Test
  void healthAnswersWithoutAuthentication() {
    Reply reply = Http.get(fixture.uri(), "/health", null);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("status").asText()).isEqualTo("ok");
  }

  @Test
  void lookupOfAnInvalidKeyIs400() throws Exception {
    assertProblem(
        Http.get(fixture.uri(), "/v1/operations/" + "k".repeat(256), acme),
        400,
        "invalid-idempotency-key");
  }

  @Test
  void keysWithSlashesAndPercentSignsCanBeLookedUp() throws Exception {
    String key = "tenant/42%done?#x";
    Http.createNote(fixture.uri(), acme, key, NOTE);
    String encoded = "tenant%2F42%25done%3F%23x";

    Reply lookup =
        Http.send(
            HttpRequest.newBuilder(URI.create(fixture.uri() + "/v1/operations/" + encoded))
                .header("Authorization", "Bearer " + acme)
                .build());

    assertThat(lookup.status()).isEqualTo(200);
    assertThat(lookup.json().get("key").asText()).isEqualTo(key);
  }

  @Test
  void listOfToolsPublishesTheirSchemas() {
    Reply reply = Http.get(fixture.uri(), "/v1/tools", acme);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("tools").get(0).get("name").asText()).isEqualTo("create-note");
    assertThat(reply.json().get("tools").get(0).get("inputSchema").get("required").get(0).asText())
        .isEqualTo("title");
  }
}
