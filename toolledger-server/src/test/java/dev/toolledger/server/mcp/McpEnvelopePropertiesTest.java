package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.server.RawHttp.Response;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Generated JSON-RPC envelopes against the real /mcp endpoint, in an initialized session: wrong
 * types, unknown methods, batches, deep nesting, huge numbers, invalid UTF-8, arbitrary bytes. Each
 * gets exactly one answer (a JSON-RPC message, or a problem document before JSON-RPC starts), never
 * a 5xx or a leaked internal, and an operation is recorded only when the answer says it executed.
 */
class McpEnvelopePropertiesTest {
  static McpFixture fixture;
  static RawMcp session;
  static String token;

  @BeforeContainer
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("toolledger-mcp-properties");
    fixture = McpFixture.start(dir);
    token = fixture.token("acme");
    session = RawMcp.open(fixture.mcpUri(), token);
  }

  @AfterContainer
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Provide
  Arbitrary<String> jsonValues() {
    Arbitrary<String> scalars =
        Arbitraries.oneOf(
            Arbitraries.of("null", "true", "false", "0", "-1", "1e999", "1.5", "\"\"", "\"x\""),
            Arbitraries.strings().ofMaxLength(20).map(s -> "\"" + escape(s) + "\""),
            Arbitraries.longs().map(l -> Long.toString(l)));
    return Arbitraries.recursive(
        () -> scalars,
        inner ->
            Arbitraries.oneOf(
                inner.list().ofMaxSize(3).map(l -> "[" + String.join(",", l) + "]"),
                Combinators.combine(
                        Arbitraries.of("name", "arguments", "_meta", "title", "x", ""), inner)
                    .as((k, v) -> "{\"" + k + "\":" + v + "}")),
        0,
        4);
  }

  static String escape(String s) {
    StringBuilder out = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  @Provide
  Arbitrary<byte[]> envelopes() {
    Arbitrary<String> ids = Arbitraries.of("1", "\"a\"", "null", "1.5", "{}", "[]", "true");
    Arbitrary<String> methods =
        Arbitraries.oneOf(
            Arbitraries.of(
                "\"tools/call\"",
                "\"tools/list\"",
                "\"initialize\"",
                "\"ping\"",
                "\"resources/list\"",
                "1",
                "null"),
            Arbitraries.strings().alpha().ofMaxLength(12).map(s -> "\"" + s + "\""));
    Arbitrary<String> messages =
        Combinators.combine(ids, methods, jsonValues())
            .as(
                (id, method, params) ->
                    "{\"jsonrpc\":\"2.0\",\"id\":"
                        + id
                        + ",\"method\":"
                        + method
                        + ",\"params\":"
                        + params
                        + "}");
    Arbitrary<String> toolCalls =
        Combinators.combine(Arbitraries.of("create-note", "no-such-tool", ""), jsonValues())
            .as(
                (name, arguments) ->
                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\""
                        + name
                        + "\",\"arguments\":"
                        + arguments
                        + ",\"_meta\":{\"dev.toolledger/operation-key\":\"fuzz-"
                        + Math.abs(arguments.hashCode())
                        + "\"}}}");
    Arbitrary<String> batches =
        messages.list().ofMinSize(1).ofMaxSize(3).map(l -> "[" + String.join(",", l) + "]");
    Arbitrary<String> deep =
        Arbitraries.integers()
            .between(1, 100_000)
            .map(
                n ->
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":"
                        + "[".repeat(n)
                        + "]".repeat(n)
                        + "}");
    Arbitrary<byte[]> text =
        Arbitraries.oneOf(messages, toolCalls, batches, deep, jsonValues())
            .map(s -> s.getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> invalidUtf8 =
        toolCalls.map(
            s -> {
              byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
              int at = s.indexOf("\"arguments\":") + 13;
              if (at > 13 && at < bytes.length) {
                bytes[at] = (byte) 0xC3; // a lead byte without its continuation
              }
              return bytes;
            });
    Arbitrary<byte[]> anyBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    return Arbitraries.oneOf(text, invalidUtf8, anyBytes);
  }

  @Property(tries = 250)
  void everyEnvelopeGetsOneStableAnswerAndRecordsOnlyWhatItSaysItDid(
      @ForAll("envelopes") byte[] body) throws Exception {
    long before = fixture.count("SELECT COUNT(*) FROM tl_operations");
    // One kept-alive client for every request, as agents use: an answer that leaves the
    // connection unusable (a 413 sent before the body was read) fails the next request.
    java.net.http.HttpResponse<String> reply = session.postBytes(body);
    Response answer =
        new Response(
            reply.statusCode(),
            reply.headers().map().entrySet().stream()
                .map(e -> e.getKey() + ": " + String.join(",", e.getValue()))
                .collect(java.util.stream.Collectors.joining("\r\n")),
            reply.body());

    assertThat(answer.status()).as(answer.head()).isBetween(200, 499);
    McpHardeningTest.assertNoInternals(answer.body());
    String contentType = answer.header("Content-Type");
    if (contentType != null && contentType.startsWith("application/problem+json")) {
      assertThat(answer.body()).contains("\"type\":\"https://toolledger.dev/problems/");
    } else if (answer.status() != 202) {
      String message = McpHardeningTest.sseData(answer.body());
      assertThat(message.split("\"jsonrpc\"", -1)).as("exactly one JSON-RPC answer").hasSize(2);
    }
    boolean executed = answer.body().contains("\"dev.toolledger/replayed\":false");
    assertThat(fixture.count("SELECT COUNT(*) FROM tl_operations"))
        .as("recorded only when the answer says it executed: %s", answer.body())
        .isEqualTo(before + (executed ? 1 : 0));
  }
}
