package dev.toolledger.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The benchmark's HTTP clients: one persistent HTTP/1.1 connection per client thread, requests
 * written as bytes and responses read by {@code Content-Length} (or, for MCP's event streams, by
 * chunks), the way a load generator such as wrk works. The JDK's {@code HttpClient} costs more CPU
 * per request than the server's whole request handling; on a small machine, where clients and
 * server share the cores, it measured the client instead of the server (see the README's benchmark
 * section).
 *
 * <p>Not a general HTTP client: it expects a server that answers every request with a {@code
 * Content-Length} or a chunked body that ends, and keeps the connection open, which the ToolLedger
 * server does (an MCP answer to one request is one JSON body with a {@code Content-Length}; an MCP
 * server that answers with an SSE stream sends it in a chunked body that then ends).
 */
final class Http1Clients implements AutoCloseable {
  private final InetSocketAddress address;
  private final String host;
  private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();

  Http1Clients(URI base) {
    this.address = new InetSocketAddress(base.getHost(), base.getPort());
    this.host = base.getHost() + ":" + base.getPort();
  }

  /**
   * A response: its status, the values of {@code Idempotent-Replayed}, {@code Content-Type} and
   * {@code Mcp-Session-Id} (each null when absent), and its body as text when it was asked for
   * (null otherwise: the body is then skipped, not decoded).
   */
  record Response(int status, String replayed, String contentType, String sessionId, String body) {}

  /** Sends a POST on the connection of client {@code client}; skips the response's body. */
  Response post(int client, String path, Map<String, String> headers, byte[] body)
      throws IOException {
    return send(client, "POST", path, headers, body, false);
  }

  /** Sends a POST on the connection of client {@code client} and returns the body too. */
  Response postReadingBody(int client, String path, Map<String, String> headers, byte[] body)
      throws IOException {
    return send(client, "POST", path, headers, body, true);
  }

  /** Sends a GET on the connection of client {@code client}; skips the response's body. */
  Response get(int client, String path, Map<String, String> headers) throws IOException {
    return send(client, "GET", path, headers, new byte[0], false);
  }

  /** Sends a DELETE on the connection of client {@code client}; skips the response's body. */
  Response delete(int client, String path, Map<String, String> headers) throws IOException {
    return send(client, "DELETE", path, headers, new byte[0], false);
  }

  private Response send(
      int client,
      String method,
      String path,
      Map<String, String> headers,
      byte[] body,
      boolean readBody)
      throws IOException {
    Connection connection = connections.get(client);
    if (connection == null) {
      connection = new Connection(address);
      connections.put(client, connection);
    }
    StringBuilder head = new StringBuilder(256);
    head.append(method)
        .append(' ')
        .append(path)
        .append(" HTTP/1.1\r\nHost: ")
        .append(host)
        .append("\r\n");
    for (Map.Entry<String, String> header : headers.entrySet()) {
      head.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n");
    }
    if (body.length > 0) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    try {
      return connection.exchange(
          head.toString().getBytes(StandardCharsets.US_ASCII), body, readBody);
    } catch (IOException e) {
      connections.remove(client);
      connection.close();
      throw e;
    }
  }

  @Override
  public void close() {
    connections.values().forEach(Connection::close);
    connections.clear();
  }

  private static final class Connection {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Connection(InetSocketAddress address) throws IOException {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(address, 5000);
      socket.setSoTimeout(30_000);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
    }

    Response exchange(byte[] head, byte[] body, boolean readBody) throws IOException {
      byte[] request = new byte[head.length + body.length];
      System.arraycopy(head, 0, request, 0, head.length);
      System.arraycopy(body, 0, request, head.length, body.length);
      out.write(request);
      out.flush();
      String statusLine = line();
      if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
        throw new IOException("not an HTTP/1.1 response: " + statusLine);
      }
      int status = Integer.parseInt(statusLine.substring(9, 12));
      int length = -1;
      boolean chunked = false;
      String replayed = null;
      String contentType = null;
      String sessionId = null;
      for (String line = line(); !line.isEmpty(); line = line()) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = line.substring(colon + 1).trim();
        if (name.equals("content-length")) {
          length = Integer.parseInt(value);
        } else if (name.equals("idempotent-replayed")) {
          replayed = value;
        } else if (name.equals("content-type")) {
          contentType = value;
        } else if (name.equals("mcp-session-id")) {
          sessionId = value;
        } else if (name.equals("transfer-encoding")) {
          chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
        }
      }
      String text;
      if (chunked) {
        text = chunkedBody(readBody);
      } else if (length < 0) {
        throw new IOException("a response without Content-Length or chunks");
      } else if (readBody) {
        text = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      } else {
        in.skipNBytes(length);
        text = null;
      }
      return new Response(status, replayed, contentType, sessionId, text);
    }

    /** Reads a chunked body to its last chunk and trailers; returns it if asked, else null. */
    private String chunkedBody(boolean keep) throws IOException {
      ByteArrayOutputStream body = keep ? new ByteArrayOutputStream(512) : null;
      while (true) {
        String sizeLine = line();
        int extension = sizeLine.indexOf(';');
        int size =
            Integer.parseInt(
                (extension < 0 ? sizeLine : sizeLine.substring(0, extension)).trim(), 16);
        if (size == 0) {
          while (!line().isEmpty()) {
            // Trailer fields: none expected, none needed.
          }
          return keep ? body.toString(StandardCharsets.UTF_8) : null;
        }
        if (keep) {
          body.write(in.readNBytes(size));
        } else {
          in.skipNBytes(size);
        }
        if (!line().isEmpty()) {
          throw new IOException("a chunk longer than its size line said");
        }
      }
    }

    private String line() throws IOException {
      StringBuilder line = new StringBuilder(64);
      while (true) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("the server closed the connection");
        }
        if (b == '\n') {
          int end = line.length();
          if (end > 0 && line.charAt(end - 1) == '\r') {
            line.setLength(end - 1);
          }
          return line.toString();
        }
        line.append((char) b);
      }
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // Closing a benchmark connection: nothing to recover.
      }
    }
  }
}
