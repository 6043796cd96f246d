package dev.toolledger.server.mcp;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Streamable HTTP by hand, for what the SDK client does not let a test do: send a malformed
 * message, or drop the connection in the middle of a call.
 */
final class RawMcp {
  static final String PROTOCOL_VERSION = "2025-11-25";
  static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
          + "\"protocolVersion\":\""
          + PROTOCOL_VERSION
          + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private final URI endpoint;
  private final String token;
  private final String sessionId;

  private RawMcp(URI endpoint, String token, String sessionId) {
    this.endpoint = endpoint;
    this.token = token;
    this.sessionId = sessionId;
  }

  /** Initializes a session. */
  static RawMcp open(URI endpoint, String token) throws Exception {
    HttpResponse<String> init =
        HTTP.send(request(endpoint, token, null, INITIALIZE), HttpResponse.BodyHandlers.ofString());
    if (init.statusCode() != 200) {
      throw new IllegalStateException("initialize answered " + init.statusCode());
    }
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    RawMcp raw = new RawMcp(endpoint, token, session);
    HttpResponse<String> initialized =
        raw.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    if (initialized.statusCode() != 202) {
      throw new IllegalStateException("initialized answered " + initialized.statusCode());
    }
    return raw;
  }

  String sessionId() {
    return sessionId;
  }

  /** Posts {@code body} as it is (any bytes) in this session with another token. */
  HttpResponse<String> postAs(String otherToken, byte[] body) throws Exception {
    return send(endpoint, otherToken, sessionId, body, Map.of());
  }

  HttpResponse<String> postBytes(byte[] body) throws Exception {
    return send(endpoint, token, sessionId, body, Map.of());
  }

  HttpResponse<String> delete() throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(endpoint)
            .header("Authorization", "Bearer " + token)
            .header("Mcp-Session-Id", sessionId)
            .DELETE()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A POST of any bytes with any extra headers; {@code session} may be null. */
  static HttpResponse<String> send(
      URI endpoint, String token, String session, byte[] body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint)
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (session != null) {
      request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", PROTOCOL_VERSION);
    }
    headers.forEach(request::setHeader);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> initialize(URI endpoint, String token) throws Exception {
    return send(endpoint, token, null, INITIALIZE.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  HttpResponse<String> post(String message) throws Exception {
    return HTTP.send(
        request(endpoint, token, sessionId, message), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Sends a message on a plain socket and returns the socket without reading the answer, so that
   * the caller can close it while the server works.
   */
  Socket postAndKeepOpen(String message) throws IOException {
    Socket socket = new Socket(endpoint.getHost(), endpoint.getPort());
    byte[] body = message.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + endpoint.getRawPath()
            + " HTTP/1.1\r\n"
            + "Host: "
            + endpoint.getHost()
            + ":"
            + endpoint.getPort()
            + "\r\n"
            + "Authorization: Bearer "
            + token
            + "\r\n"
            + "Mcp-Session-Id: "
            + sessionId
            + "\r\n"
            + "MCP-Protocol-Version: "
            + PROTOCOL_VERSION
            + "\r\n"
            + "Accept: application/json, text/event-stream\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n\r\n";
    OutputStream out = socket.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return socket;
  }

  private static HttpRequest request(URI endpoint, String token, String session, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint)
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", PROTOCOL_VERSION);
    }
    return request.build();
  }
}
