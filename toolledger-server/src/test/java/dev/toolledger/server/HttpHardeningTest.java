package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a black-box probe and an API fuzzer found on the HTTP side, over real sockets: every key the
 * API accepts can be looked up and resolved by its path; a request naming a host the node does not
 * answer to (DNS rebinding) is refused on every endpoint; and no answer or history entry names a
 * class or library.
 */
class HttpHardeningTest {
  private static final String TYPE = "https://toolledger.dev/problems/";

  @TempDir Path dir;
  Cluster cluster;
  String acme;

  @BeforeEach
  void start() {
    cluster = Cluster.sqlite(dir.resolve("ledger.db"), builder -> builder.tool(new TimingOut()));
    acme = cluster.token("acme");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  // ---------------------------------------------------------------- keys by path

  /** Every visible ASCII character, in the middle of a key, alone, and the dot segments. */
  private static List<String> keysOfEveryCharacter() {
    List<String> keys = new ArrayList<>();
    for (char c = 0x21; c <= 0x7E; c++) {
      keys.add("k" + c + "x");
      keys.add(String.valueOf(c));
    }
    keys.add("..");
    keys.add("a\\..\\b");
    keys.add("a/../b");
    keys.add("%5C");
    keys.add("\\\\server\\share");
    return keys;
  }

  /** Percent-encodes every character that is not unreserved (RFC 3986), as a client should. */
  private static String encode(String key) {
    StringBuilder out = new StringBuilder();
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) b;
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '~') {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xFF));
      }
    }
    return out.toString();
  }

  @Test
  void everyAcceptedKeyIsFoundAndResolvedByItsPercentEncodedPath() {
    URI node = cluster.node(0);
    List<String> failures = new ArrayList<>();
    int i = 0;
    for (String key : keysOfEveryCharacter()) {
      String body = "{\"title\":\"t" + i++ + "\",\"body\":\"b\"}";
      String header = key.startsWith("\"") ? "\"\\\"\"" : key; // a bare '"' opens a quoted key
      if (key.startsWith("\"") && key.length() > 1) {
        header = "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
      }
      Reply created = Http.createNote(node, acme, header, body);
      if (created.status() != 201) {
        failures.add(key + ": create " + created.status() + " " + created.body());
        continue;
      }
      Reply lookup = Http.get(node, "/v1/operations/" + encode(key), acme);
      if (lookup.status() != 200 || !lookup.json().path("state").asText().equals("COMPLETED")) {
        failures.add(key + ": lookup " + lookup.status() + " " + lookup.body());
      }
      Reply resolve =
          Http.post(node, "/v1/operations/" + encode(key) + "/resolve", acme, null, "{}");
      if (resolve.status() != 200
          || !resolve.json().path("resolution").asText().equals("current")) {
        failures.add(key + ": resolve " + resolve.status() + " " + resolve.body());
      }
    }
    assertThat(failures).isEmpty();
  }

  // ---------------------------------------------------------------- Host

  private RawHttp.Response withHost(String method, String path, String host, String token) {
    String head =
        method
            + " "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + (token == null ? "" : "\r\nAuthorization: Bearer " + token)
            + "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json";
    byte[] body = method.equals("GET") ? new byte[0] : "{}".getBytes(StandardCharsets.UTF_8);
    return RawHttp.exchange(cluster.node(0), head.getBytes(StandardCharsets.US_ASCII), body);
  }

  @Test
  void aRequestNamingAForeignHostIsRefusedOnEveryEndpointBeforeAnythingRuns() {
    int port = cluster.node(0).getPort();
    String[][] requests = {
      {"GET", "/metrics"},
      {"GET", "/console/"},
      {"GET", "/health"},
      {"GET", "/openapi.json"},
      {"GET", "/v1/tools"},
      {"GET", "/v1/operations/k-1"},
      {"POST", "/v1/tools/create-note"},
      {"POST", "/mcp"},
    };
    for (String[] request : requests) {
      for (String host :
          List.of("evil.example:" + port, "evil.example", "localhost.evil.example:" + port)) {
        RawHttp.Response answer = withHost(request[0], request[1], host, acme);
        assertThat(answer.status())
            .as("%s %s Host %s", request[0], request[1], host)
            .isEqualTo(421);
        assertThat(answer.isProblem()).isTrue();
        assertThat(Json.parse(answer.body().getBytes(StandardCharsets.UTF_8)).get("type").asText())
            .isEqualTo(TYPE + "misdirected-host");
      }
      for (String host :
          List.of(
              "localhost:" + port,
              "127.0.0.1:" + port,
              "[::1]:" + port,
              "localhost",
              "127.0.0.1:1")) {
        RawHttp.Response answer = withHost(request[0], request[1], host, acme);
        assertThat(answer.status())
            .as("%s %s Host %s", request[0], request[1], host)
            .isNotEqualTo(421);
      }
    }
    assertThat(Http.get(cluster.node(0), "/v1/operations/k-1", acme).status())
        .as("nothing was recorded by the refused create")
        .isEqualTo(404);
  }

  @Test
  void aConfiguredHostIsAcceptedAndTheLoopbackNamesNoLonger() {
    try (Cluster other =
        Cluster.sqlite(
            dir.resolve("other.db"),
            builder ->
                builder.serverConfig(
                    ServerConfig.builder()
                        .port(0)
                        .shutdownGrace(java.time.Duration.ZERO)
                        .allowedHost("ledger.example.com")
                        .build()))) {
      int port = other.node(0).getPort();
      String head = "GET /health HTTP/1.1\r\nHost: ";
      assertThat(
              RawHttp.exchange(
                      other.node(0),
                      (head + "LEDGER.example.com:" + port).getBytes(StandardCharsets.US_ASCII),
                      new byte[0])
                  .status())
          .isEqualTo(200);
      assertThat(
              RawHttp.exchange(
                      other.node(0),
                      (head + "localhost:" + port).getBytes(StandardCharsets.US_ASCII),
                      new byte[0])
                  .status())
          .isEqualTo(421);
    }
  }

  // ---------------------------------------------------------------- no library names

  private static final List<String> LIBRARY_WORDS =
      List.of("StreamReadConstraints", "jackson", "fasterxml", "Exception", "`", "java.", "io.");

  private static void namesNoLibrary(String text) {
    for (String word : LIBRARY_WORDS) {
      assertThat(text.toLowerCase(java.util.Locale.ROOT))
          .as("an answer or history naming a class or library: %s", text)
          .doesNotContain(word.toLowerCase(java.util.Locale.ROOT));
    }
  }

  private static String deeplyNested() {
    return "{\"a\":" + "[".repeat(3000) + "]".repeat(3000) + "}";
  }

  @Test
  void aDeeplyNestedBodyIsMalformedJsonInPlainWordsOnTheApiAndOverMcp() {
    URI node = cluster.node(0);
    Reply api = Http.createNote(node, acme, "deep-1", deeplyNested());
    assertThat(api.status()).isEqualTo(400);
    assertThat(api.problemType()).isEqualTo(TYPE + "malformed-json");
    assertThat(api.json().get("detail").asText()).contains("nesting deeper than");
    namesNoLibrary(api.body());

    Reply resolve = Http.post(node, "/v1/operations/deep-1/resolve", acme, null, deeplyNested());
    assertThat(resolve.status()).isIn(400, 403);
    namesNoLibrary(resolve.body());

    Reply mcp =
        Http.post(
            node,
            "/mcp",
            acme,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":"
                + deeplyNested()
                + "}",
            "Accept",
            "application/json, text/event-stream");
    assertThat(mcp.json().path("error").path("code").asInt()).isEqualTo(-32700);
    namesNoLibrary(mcp.body());

    for (String broken : List.of("{\"a\":1e99999999999}", "{\"a\":\"x\"", "{\"a\":tru}", "[1,]")) {
      namesNoLibrary(Http.createNote(node, acme, "broken", broken).body());
    }
  }

  @Test
  void anEffectThatTimedOutIsRecordedInPlainWordsWithoutTheExceptionsName() {
    URI node = cluster.node(0);
    Reply answer = Http.post(node, "/v1/tools/" + TimingOut.NAME, acme, "t-1", "{}");
    assertThat(answer.status()).isEqualTo(409);
    namesNoLibrary(answer.body());
    Reply lookup = Http.get(node, "/v1/operations/t-1", acme);
    assertThat(lookup.status()).isEqualTo(200);
    assertThat(lookup.json().get("state").asText()).isEqualTo("UNKNOWN");
    assertThat(lookup.body()).contains("a timeout");
    namesNoLibrary(lookup.body());
  }

  /** An external tool whose downstream call times out: its effect may or may not have happened. */
  static final class TimingOut implements ExternalTool {
    static final String NAME = "call-slow-service";

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder(NAME, "1")
          .description("Calls a service that does not answer in time.")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
      throw new HttpTimeoutException("request timed out");
    }
  }
}
