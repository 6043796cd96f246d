package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpTransportException;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * What the lean transport puts on the wire and what answers it takes, against a scripted HTTP/1.1
 * server on a real socket: shapes of answer the ToolLedger node never gives (a JSON body, a server
 * request inside the SSE answer, a stream that ends without the response), and the exact headers.
 * The real node's behaviour is {@link LeanStreamableHttpTransportTest}'s.
 */
class LeanTransportWireTest {

  @Test
  void sessionAndNegotiatedVersionHeadersFollowInitializeAndServerRequestsInTheStreamAreAnswered()
      throws Exception {
    try (Scripted server =
        new Scripted(
            request -> {
              String method = request.json().path("method").asText("");
              JsonNode id = request.json().path("id");
              if (request.method().equals("DELETE")) {
                return "HTTP/1.1 204 No Content\r\n\r\n";
              }
              switch (method) {
                case "initialize":
                  return json(
                      "{\"jsonrpc\":\"2.0\",\"id\":"
                          + id
                          + ",\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
                          + "\"serverInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}",
                      "Mcp-Session-Id: s-1\r\n");
                case "tools/call":
                  return sse(
                      ": a comment\n\n"
                          + "id: 1\nevent: message\n"
                          + "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n"
                          + "data:\n\n"
                          + "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":"
                          + id
                          + ",\ndata: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],"
                          + "\"isError\":false}}\n\n");
                default: // notifications/initialized and the client's answer to ping
                  return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
              }
            })) {
      McpSyncClient client = client(server.endpoint());
      CallToolResult result =
          client.callTool(CallToolRequest.builder("t").arguments(Map.of()).build());
      client.closeGracefully();

      assertThat(result.isError()).isFalse();
      List<Scripted.Request> requests = server.requests;
      assertThat(requests)
          .extracting(
              r ->
                  r.method()
                      + " "
                      + r.json().path("method").asText(r.json().has("result") ? "(result)" : ""))
          .containsExactlyInAnyOrder(
              "POST initialize",
              "POST notifications/initialized",
              "POST tools/call",
              "POST (result)",
              "DELETE ");
      Scripted.Request initialize = requests.get(0);
      assertThat(initialize.headers()).doesNotContainKey("mcp-session-id");
      assertThat(initialize.headers())
          .containsEntry("mcp-protocol-version", "2025-11-25")
          .containsEntry("accept", "application/json, text/event-stream")
          .containsEntry("content-type", "application/json")
          .containsEntry("authorization", "Bearer tl_test");
      for (Scripted.Request later : requests.subList(1, requests.size())) {
        assertThat(later.headers())
            .as(later.method() + " " + later.json())
            .containsEntry("mcp-session-id", "s-1")
            .containsEntry("mcp-protocol-version", "2025-06-18");
      }
      assertThat(requests)
          .filteredOn(r -> r.json().has("result"))
          .singleElement()
          .satisfies(pong -> assertThat(pong.json().path("id").asText()).isEqualTo("srv-1"));
      assertThat(server.connections.get()).as("kept-alive connections").isLessThanOrEqualTo(2);
    }
  }

  @Test
  void streamThatEndsWithoutTheResponseFailsClearly() throws Exception {
    try (Scripted server =
        new Scripted(
            request ->
                request.json().path("method").asText().equals("initialize")
                    ? json(
                        "{\"jsonrpc\":\"2.0\",\"id\":"
                            + request.json().path("id")
                            + ",\"result\":{\"protocolVersion\":\"2025-11-25\","
                            + "\"capabilities\":{\"tools\":{}},"
                            + "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}",
                        "")
                    : request.json().has("id")
                        ? sse(
                            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
                                + "\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
                        : "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")) {
      McpSyncClient client = client(server.endpoint());
      assertThatThrownBy(
              () -> client.callTool(CallToolRequest.builder("t").arguments(Map.of()).build()))
          .isInstanceOf(McpTransportException.class)
          .hasMessageContaining("ended without the response")
          .hasMessageContaining("does not resume");
      client.close();
    }
  }

  private static McpSyncClient client(URI endpoint) {
    return McpClient.sync(
            LeanStreamableHttpTransport.builder(endpoint)
                .header("Authorization", "Bearer tl_test")
                .readTimeout(Duration.ofSeconds(10))
                .build())
        .requestTimeout(Duration.ofSeconds(10))
        .initializationTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static String json(String body, String extraHeaders) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + extraHeaders
        + "Content-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length
        + "\r\n\r\n"
        + body;
  }

  /** An SSE answer in two chunks, split inside an event, ended by the last chunk. */
  private static String sse(String events) {
    int half = events.length() / 2;
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk(events.substring(0, half))
        + chunk(events.substring(half))
        + "0\r\n\r\n";
  }

  private static String chunk(String text) {
    return Integer.toHexString(text.getBytes(StandardCharsets.UTF_8).length)
        + "\r\n"
        + text
        + "\r\n";
  }

  /** A keep-alive HTTP/1.1 server on a real socket that answers each request from a script. */
  static final class Scripted implements AutoCloseable {
    record Request(String method, Map<String, String> headers, JsonNode json) {}

    final List<Request> requests = new CopyOnWriteArrayList<>();
    final java.util.concurrent.atomic.AtomicInteger connections =
        new java.util.concurrent.atomic.AtomicInteger();
    private final ServerSocket socket;
    private final Function<Request, String> script;

    Scripted(Function<Request, String> script) throws IOException {
      this.script = script;
      this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread accept = new Thread(this::accept, "scripted-accept");
      accept.setDaemon(true);
      accept.start();
    }

    URI endpoint() {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/mcp");
    }

    private void accept() {
      while (!socket.isClosed()) {
        try {
          Socket connection = socket.accept();
          connections.incrementAndGet();
          Thread serve = new Thread(() -> serve(connection), "scripted-serve");
          serve.setDaemon(true);
          serve.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket connection) {
      try (connection) {
        InputStream in = new BufferedInputStream(connection.getInputStream());
        OutputStream out = connection.getOutputStream();
        while (true) {
          String requestLine = line(in);
          if (requestLine == null) {
            return;
          }
          Map<String, String> headers = new TreeMap<>();
          for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.put(
                line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                line.substring(colon + 1).trim());
          }
          int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
          String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
          Request request =
              new Request(
                  requestLine.substring(0, requestLine.indexOf(' ')),
                  headers,
                  body.isEmpty() ? Json.object() : Json.parse(body));
          requests.add(request);
          out.write(script.apply(request).getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException e) {
        // The client closed the connection.
      }
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b = in.read(); b >= 0; b = in.read()) {
        if (b == '\n') {
          String text = line.toString(StandardCharsets.US_ASCII);
          return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
        }
        line.write(b);
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
