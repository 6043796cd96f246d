package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server's log, in both formats, keeps every secret out: canary strings in tokens (a
 * tenant's, a refused one and the operator's), in operation keys and in parameters travel through
 * executions, replays, conflicts and every kind of refusal over HTTP and MCP, and none of them
 * reaches stderr, while the keys' hashes and the correlation ids do. A key's hash is keyed with the
 * installation's secret: a reader of the log cannot confirm a guessed key with it.
 */
class LogsKeepSecretsOutIT {
  private static final Path JAR = Path.of("target", "toolledger.jar");
  private static final Pattern URL = Pattern.compile("serving (http://\\S+)");

  private static final String KEY = "key-canary-5b2e9d";
  private static final String OTHER_KEY = "key-canary-other-7731aa";
  private static final String MCP_KEY = "key-canary-mcp-4e7c11";

  /** A key anyone could guess; its plain SHA-256 would confirm the guess. */
  private static final String GUESSABLE_KEY = "order-42";

  private static final String TITLE = "title-canary-c41f07";
  private static final String BODY = "body-canary-8a6d13";
  private static final String CONFLICTING = "title-canary-conflict-2f9b44";
  private static final String MCP_TITLE = "title-canary-mcp-0d93aa";
  private static final String BAD_TOKEN = "tl_canary93e1_badtokencanaryxyz";
  private static final String OPERATOR_TOKEN = "operator-canary-6c0a2b-0123456789";
  private static final String WRONG_OPERATOR_TOKEN = "operator-canary-wrong-55e1b0-0123";

  private static final List<String> CANARIES =
      List.of(
          KEY,
          OTHER_KEY,
          MCP_KEY,
          GUESSABLE_KEY,
          TITLE,
          BODY,
          CONFLICTING,
          MCP_TITLE,
          "canary93e1",
          "badtokencanary",
          OPERATOR_TOKEN,
          WRONG_OPERATOR_TOKEN);

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @TempDir Path dir;

  @Test
  void plainLogsCarryHashesAndRequestIdsButNoSecret() throws Exception {
    List<String> log =
        exerciseAndCollectTheLog(List.of(), Map.of("TOOLLEDGER_LOG_FORMAT", "plain"));

    assertThat(String.join("\n", log)).contains("outcome=\"executed\"");
    assertThat(String.join("\n", log)).contains("request_id=");
  }

  @Test
  void jsonLogsAreOneObjectPerLineWithTheFieldsAndNoSecret() throws Exception {
    List<String> log = exerciseAndCollectTheLog(List.of("--log-format", "json"), Map.of());

    List<JsonNode> lines = new ArrayList<>();
    for (String line : log) {
      if (!line.isBlank()) {
        lines.add(Json.parse(line));
      }
    }
    assertThat(lines).isNotEmpty().allMatch(JsonNode::isObject);
    JsonNode executed =
        lines.stream()
            .filter(line -> "executed".equals(line.path("outcome").asText()))
            .findFirst()
            .orElseThrow();
    assertThat(executed.path("tenant").asText()).isEqualTo("acme");
    assertThat(executed.path("tool").asText()).isEqualTo("create-note");
    assertThat(executed.path("key").asText()).isEqualTo(hashKey(KEY)).matches("[0-9a-f]{16}");
    assertThat(executed.path("request_id").asText()).matches("[0-9a-f]{16}");
    assertThat(executed.has("ms")).isTrue();
    assertThat(executed.has("@timestamp")).isTrue();
    assertThat(executed.path("level").asText()).isEqualTo("INFO");
    assertThat(lines)
        .anySatisfy(
            line -> {
              assertThat(line.path("outcome").asText()).isEqualTo("rejected");
              assertThat(line.path("error").asText()).isEqualTo("invalid-parameters");
            });
    assertThat(lines)
        .anySatisfy(line -> assertThat(line.path("transport").asText()).isEqualTo("mcp"));
  }

  @Test
  void aLogLineDoesNotLetAReaderConfirmAGuessedKeyWithoutTheInstallationSecret() throws Exception {
    String log =
        String.join(
            "\n", exerciseAndCollectTheLog(List.of(), Map.of("TOOLLEDGER_LOG_FORMAT", "plain")));
    byte[] secret = installationSecret();
    String logged = loggedKeyOfTheGuessableKey(log);

    // What a reader without the secret would try: the plain SHA-256 of the guess, whole or cut.
    String plain = sha256Hex(GUESSABLE_KEY);
    assertThat(log).doesNotContain(plain.substring(0, 12)).doesNotContain(plain.substring(0, 16));
    assertThat(logged).isNotEqualTo(plain.substring(0, 16));
    // Only HMAC-SHA256 with this installation's secret, over the tenant and the key, gives it.
    assertThat(logged).isEqualTo(hmac(secret, "acme", GUESSABLE_KEY));
    assertThat(logged).isNotEqualTo(hmac(randomSecret(), "acme", GUESSABLE_KEY));
    assertThat(logged).isNotEqualTo(hmac(secret, "globex", GUESSABLE_KEY));
    // The operator's way to the same value: toolledger ops hash-key.
    assertThat(hashKey(GUESSABLE_KEY)).isEqualTo(logged);
    assertThat(log).doesNotContain(HexFormat.of().formatHex(secret));
  }

  /** The key field of the line of the guessable key's execution. */
  private static String loggedKeyOfTheGuessableKey(String log) {
    Matcher m =
        Pattern.compile(
                "outcome=\"executed\" tenant=\"acme\" tool=\"create-note\" key=\"([0-9a-f]+)\"")
            .matcher(log);
    List<String> executed = new ArrayList<>();
    while (m.find()) {
      executed.add(m.group(1));
    }
    // Two executions over HTTP (KEY, then the guessable key), then MCP.
    assertThat(executed).as(log).hasSizeGreaterThanOrEqualTo(2);
    return executed.get(1);
  }

  /** The secret as the ledger stores it, read with plain JDBC. */
  private byte[] installationSecret() throws Exception {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:sqlite:" + dir.resolve("ledger.db").toAbsolutePath());
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT secret FROM tl_installation WHERE name = 'key-hash-secret'")) {
      assertThat(rs.next()).as("a secret in tl_installation").isTrue();
      byte[] secret = HexFormat.of().parseHex(rs.getString(1));
      assertThat(rs.next()).as("one key-hash secret").isFalse();
      return secret;
    }
  }

  private static byte[] randomSecret() {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    return secret;
  }

  private static String hmac(byte[] secret, String tenant, String key) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
    byte[] t = tenant.getBytes(StandardCharsets.US_ASCII);
    byte[] input =
        ByteBuffer.allocate(4 + t.length + key.length())
            .putInt(t.length)
            .put(t)
            .put(key.getBytes(StandardCharsets.US_ASCII))
            .array();
    return HexFormat.of().formatHex(mac.doFinal(input), 0, 8);
  }

  private static String sha256Hex(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII)));
  }

  /** {@code toolledger ops hash-key KEY --tenant acme} on the packaged jar. */
  private String hashKey(String key) throws Exception {
    Process process =
        new ProcessBuilder(
                java(),
                "-jar",
                JAR.toString(),
                "ops",
                "hash-key",
                key,
                "--tenant",
                "acme",
                "--db",
                dir.resolve("ledger.db").toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    return out;
  }

  /**
   * Runs a server with the given extra arguments and environment, sends it every kind of request
   * with canaries in them, stops it and returns its stderr, after checking that no canary, no token
   * and no raw key is in it and that the keys' hashes are.
   */
  private List<String> exerciseAndCollectTheLog(List<String> args, Map<String, String> env)
      throws Exception {
    assertThat(JAR).as("the packaged jar").exists();
    Path db = dir.resolve("ledger.db");
    String token = issueToken(db);
    Path err = dir.resolve("server.err");
    List<String> command =
        new ArrayList<>(
            List.of(java(), "-jar", JAR.toString(), "serve", "--port", "0", "--db", db.toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
    builder.environment().putAll(env);
    builder.environment().put("TOOLLEDGER_OPERATOR_TOKEN", OPERATOR_TOKEN);
    Process server = builder.start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String first = out.readLine();
      assertThat(first).as("first line of serve").isNotNull();
      Matcher m = URL.matcher(first);
      assertThat(m.find()).as(first).isTrue();
      URI base = URI.create(m.group(1));

      exerciseHttp(base, token);
      exerciseMcp(base, token);

      server.toHandle().destroy();
      assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s").isTrue();
    } finally {
      server.destroyForcibly();
    }
    List<String> log = Files.readAllLines(err, StandardCharsets.UTF_8);
    String all = String.join("\n", log);
    for (String canary : CANARIES) {
      assertThat(all).as("the log holds the canary " + canary).doesNotContain(canary);
    }
    assertThat(all).as("the tenant's token").doesNotContain(token);
    assertThat(all).as("the tenant's token's secret").doesNotContain(secretOf(token));
    assertThat(all).contains(hashKey(KEY)).contains(hashKey(MCP_KEY));
    assertThat(all).contains("replayed").contains("conflict").contains("rejected");
    return log;
  }

  private void exerciseHttp(URI base, String token) throws Exception {
    String note = "{\"title\":\"" + TITLE + "\",\"body\":\"" + BODY + "\"}";
    assertThat(post(base, "/v1/tools/create-note", token, KEY, note).statusCode()).isEqualTo(201);
    assertThat(post(base, "/v1/tools/create-note", token, GUESSABLE_KEY, note).statusCode())
        .isEqualTo(201);
    HttpResponse<String> replay = post(base, "/v1/tools/create-note", token, KEY, note);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(
            post(base, "/v1/tools/create-note", token, KEY, "{\"title\":\"" + CONFLICTING + "\"}")
                .statusCode())
        .isEqualTo(422);
    // Invalid parameters: a title of the wrong type beside a valid body, and a title too long.
    assertThat(
            post(
                    base,
                    "/v1/tools/create-note",
                    token,
                    OTHER_KEY,
                    "{\"title\":7,\"body\":\"" + BODY + "\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(
            post(
                    base,
                    "/v1/tools/create-note",
                    token,
                    OTHER_KEY,
                    "{\"title\":\"" + TITLE.repeat(20) + "\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(post(base, "/v1/tools/create-note", token, OTHER_KEY, "{\"title\":\"" + TITLE))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(400);
    assertThat(post(base, "/v1/tools/create-note", token, null, note).statusCode()).isEqualTo(400);
    assertThat(post(base, "/v1/tools/create-note", token, KEY + " with a space", note).statusCode())
        .isEqualTo(400);
    assertThat(post(base, "/v1/tools/no-such-tool", token, KEY, note).statusCode()).isEqualTo(404);
    assertThat(post(base, "/v1/tools/create-note", BAD_TOKEN, KEY, note).statusCode())
        .isEqualTo(401);
    assertThat(get(base, "/v1/operations/" + KEY, token).statusCode()).isEqualTo(200);
    assertThat(get(base, "/v1/operations/" + OTHER_KEY, BAD_TOKEN).statusCode()).isEqualTo(401);
    assertThat(get(base, "/v1/operations/" + OTHER_KEY, token).statusCode()).isEqualTo(404);
    assertThat(
            post(base, "/v1/operations/" + OTHER_KEY + "/resolve", token, null, "{}").statusCode())
        .isEqualTo(200);
    assertThat(
            post(
                    base,
                    "/v1/operations/" + KEY + "/resolve",
                    token,
                    null,
                    "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"" + BODY + "\"}")
                .statusCode())
        .isEqualTo(409);
    assertThat(get(base, "/console/api/summary", OPERATOR_TOKEN).statusCode()).isEqualTo(200);
    assertThat(get(base, "/console/api/summary", WRONG_OPERATOR_TOKEN).statusCode()).isEqualTo(401);
    assertThat(console(base, "/console/api/operations", KEY, null).body()).contains(KEY);
    assertThat(console(base, "/console/api/operation?tenant=acme", KEY, null).statusCode())
        .isEqualTo(200);
    assertThat(
            console(
                    base,
                    "/console/api/resolve?tenant=acme",
                    KEY,
                    "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"" + BODY + "\"}")
                .statusCode())
        .isEqualTo(409);
    // A key in a console URL is refused (URLs end up in access logs), and not logged either.
    assertThat(get(base, "/console/api/operations?key=" + KEY, OPERATOR_TOKEN).statusCode())
        .isEqualTo(400);
    assertThat(get(base, "/metrics", OPERATOR_TOKEN).statusCode()).isEqualTo(200);
    assertThat(get(base, "/metrics", WRONG_OPERATOR_TOKEN).statusCode()).isEqualTo(200);
    assertThat(
            get(base, "/v1/notes?after=" + URLEncoder.encode(TITLE, StandardCharsets.UTF_8), token)
                .statusCode())
        .isEqualTo(400);
  }

  private void exerciseMcp(URI base, String token) throws Exception {
    URI mcp = base.resolve("/mcp");
    HttpResponse<String> init =
        mcpPost(
            mcp,
            token,
            null,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"canary\",\"version\":\"1\"}}}");
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    mcpPost(
        mcp,
        token,
        session,
        null,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    String args = "{\"title\":\"" + MCP_TITLE + "\",\"body\":\"" + BODY + "\"}";
    String meta = "{\"dev.toolledger/operation-key\":\"" + MCP_KEY + "\"}";
    assertThat(call(mcp, token, session, 2, "create-note", args, meta)).contains(MCP_TITLE);
    assertThat(call(mcp, token, session, 3, "create-note", args, meta)).contains(MCP_TITLE);
    assertThat(
            call(
                mcp, token, session, 4, "create-note", "{\"title\":\"" + CONFLICTING + "\"}", meta))
        .contains("idempotency-key-reused");
    assertThat(
            call(
                mcp,
                token,
                session,
                5,
                "create-note",
                "{\"title\":[\"" + MCP_TITLE + "\"]}",
                "{\"dev.toolledger/operation-key\":\"" + OTHER_KEY + "\"}"))
        .contains("invalid-parameters");
    assertThat(call(mcp, token, session, 6, "create-note", args, "{}"))
        .contains("missing-idempotency-key");
    assertThat(call(mcp, token, session, 7, "no-such-tool", args, meta)).isNotEmpty();
    assertThat(call(mcp, token, session, 8, "get-operation", "{\"key\":\"" + MCP_KEY + "\"}", "{}"))
        .contains("COMPLETED");
    assertThat(
            call(
                mcp,
                token,
                session,
                9,
                "get-operation",
                "{\"key\":\"" + OTHER_KEY + "-absent\"}",
                "{}"))
        .contains("not-found");
    HttpResponse<String> refused =
        mcpPost(
            mcp,
            BAD_TOKEN,
            session,
            MCP_KEY,
            "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{"
                + "\"name\":\"create-note\",\"arguments\":"
                + args
                + "}}");
    assertThat(refused.statusCode()).isEqualTo(401);
    HttpResponse<String> malformed =
        mcpPost(
            mcp,
            token,
            session,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\""
                + MCP_TITLE);
    assertThat(malformed.statusCode()).isGreaterThanOrEqualTo(400);
  }

  private static String call(
      URI mcp, String token, String session, int id, String tool, String args, String meta)
      throws Exception {
    HttpResponse<String> response =
        mcpPost(
            mcp,
            token,
            session,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":"
                + id
                + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
                + tool
                + "\",\"arguments\":"
                + args
                + ",\"_meta\":"
                + meta
                + "}}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  private static HttpResponse<String> mcpPost(
      URI mcp, String token, String session, String key, String message) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(mcp)
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25")
            .POST(HttpRequest.BodyPublishers.ofString(message));
    if (session != null) {
      request.header("Mcp-Session-Id", session);
    }
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(
      URI base, String path, String token, String key, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A console API call by the operator, the key in its header: a GET, or a POST of the body. */
  private static HttpResponse<String> console(URI base, String path, String key, String body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + OPERATOR_TOKEN)
            .header("Operation-Key", key);
    if (body != null) {
      request
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body));
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(URI base, String path, String token) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String issueToken(Path db) throws Exception {
    Path err = dir.resolve("tokens.err");
    Process tokens =
        new ProcessBuilder(
                java(),
                "-jar",
                JAR.toString(),
                "tokens",
                "create",
                "--tenant",
                "acme",
                // Every scope, so that each endpoint below runs far enough to log.
                "--scope",
                "tools:*",
                "--scope",
                "read",
                "--scope",
                "resolve",
                "--db",
                db.toString())
            .redirectError(err.toFile())
            .start();
    String token =
        new String(tokens.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(tokens.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tokens.exitValue()).isZero();
    assertThat(token).startsWith("tl_");
    assertThat(Files.readString(err)).doesNotContain(secretOf(token));
    return token;
  }

  /** The secret part of a token {@code tl_<id>_<secret>}. */
  private static String secretOf(String token) {
    return token.substring(token.indexOf('_', 3) + 1);
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
