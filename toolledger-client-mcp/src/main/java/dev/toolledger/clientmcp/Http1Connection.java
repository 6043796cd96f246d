package dev.toolledger.clientmcp;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One kept-alive HTTP/1.1 connection, used by one request at a time on the calling thread: the
 * request is written as bytes, the status line and headers are read, and the body is handed out as
 * a stream that ends where the message ends ({@code Content-Length}, chunked, or the connection's
 * end). The connection can take another request only once that body was read to its end and the
 * server did not ask to close it ({@link Response#reusable()}).
 *
 * <p>Not a general HTTP client: no redirects, no proxies, no 1xx other than skipping {@code 100
 * Continue}, no compression (none is asked for), no trailers (read and dropped).
 */
final class Http1Connection implements AutoCloseable {
  private static final int MAX_HEAD_LINE = 16 * 1024;

  private final Socket socket;
  private final Input in;
  private final OutputStream out;
  private long idleSince;

  private Http1Connection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new Input(socket.getInputStream());
    this.out = new BufferedOutputStream(socket.getOutputStream(), 8 * 1024);
  }

  /**
   * Connects to {@code host:port}, over TLS with the JDK's default trust and host name verification
   * when {@code tls}.
   */
  static Http1Connection open(
      String host, int port, boolean tls, int connectTimeoutMillis, int readTimeoutMillis)
      throws IOException {
    Socket plain = new Socket();
    try {
      plain.setTcpNoDelay(true);
      plain.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
      plain.setSoTimeout(readTimeoutMillis);
      if (!tls) {
        return new Http1Connection(plain);
      }
      SSLSocket secure =
          (SSLSocket)
              ((SSLSocketFactory) SSLSocketFactory.getDefault())
                  .createSocket(plain, host, port, true);
      SSLParameters parameters = secure.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      secure.setSSLParameters(parameters);
      secure.startHandshake();
      return new Http1Connection(secure);
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  /** Writes one request (head and body) and reads the answer's status line and headers. */
  Response send(byte[] head, byte[] body) throws IOException {
    out.write(head);
    out.write(body);
    out.flush();
    int status;
    Map<String, String> headers;
    do {
      String statusLine = in.line("an HTTP head line");
      if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
        throw new IOException("not an HTTP/1.x status line");
      }
      status = parseStatus(statusLine);
      headers = new HashMap<>();
      for (String line = in.line("an HTTP head line");
          !line.isEmpty();
          line = in.line("an HTTP head line")) {
        int colon = line.indexOf(':');
        if (colon > 0) {
          headers.putIfAbsent(
              line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
              line.substring(colon + 1).trim());
        }
      }
    } while (status == 100);
    return new Response(status, headers, this);
  }

  long idleSince() {
    return idleSince;
  }

  void markIdle(long nanos) {
    idleSince = nanos;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // The connection is being dropped; nothing of it is needed any more.
    }
  }

  private static int parseStatus(String statusLine) throws IOException {
    try {
      return Integer.parseInt(statusLine.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IOException("not an HTTP/1.x status line");
    }
  }

  /**
   * The socket's bytes through a buffer of its own: one thread reads a connection at a time, so the
   * locking of {@code BufferedInputStream} on every byte of the head buys nothing.
   */
  private static final class Input {
    private final InputStream socket;
    private final byte[] buffer = new byte[16 * 1024];
    private int position;
    private int limit;

    Input(InputStream socket) {
      this.socket = socket;
    }

    int read() throws IOException {
      if (position == limit && !fill()) {
        return -1;
      }
      return buffer[position++] & 0xFF;
    }

    int read(byte[] into, int offset, int length) throws IOException {
      if (position == limit) {
        if (length >= buffer.length) {
          return socket.read(into, offset, length);
        }
        if (!fill()) {
          return -1;
        }
      }
      int n = Math.min(length, limit - position);
      System.arraycopy(buffer, position, into, offset, n);
      position += n;
      return n;
    }

    /** One CRLF- or LF-ended line of the head or of a chunked body, without its end. */
    String line(String what) throws IOException {
      StringBuilder line = new StringBuilder(64);
      while (true) {
        int b = read();
        if (b < 0) {
          throw new IOException("the server closed the connection inside " + what);
        }
        if (b == '\n') {
          int end = line.length();
          if (end > 0 && line.charAt(end - 1) == '\r') {
            line.setLength(end - 1);
          }
          return line.toString();
        }
        if (line.length() >= MAX_HEAD_LINE) {
          throw new IOException(what + " longer than " + MAX_HEAD_LINE + " bytes");
        }
        line.append((char) b);
      }
    }

    private boolean fill() throws IOException {
      int n = socket.read(buffer, 0, buffer.length);
      if (n <= 0) {
        return false;
      }
      position = 0;
      limit = n;
      return true;
    }
  }

  /** An answer's status and headers, and its body as a stream that ends with the message. */
  static final class Response {
    private final int status;
    private final Map<String, String> headers;
    private final Body body;
    private final boolean close;

    private Response(int status, Map<String, String> headers, Http1Connection connection)
        throws IOException {
      this.status = status;
      this.headers = headers;
      this.close = "close".equalsIgnoreCase(headers.get("connection"));
      String encoding = headers.get("transfer-encoding");
      String length = headers.get("content-length");
      if (status == 204 || status == 304) {
        this.body = new Body(connection.in, 0, false);
      } else if (encoding != null && encoding.toLowerCase(Locale.ROOT).endsWith("chunked")) {
        this.body = new Body(connection.in, -1, true);
      } else if (length != null) {
        try {
          this.body = new Body(connection.in, Long.parseLong(length), false);
        } catch (NumberFormatException e) {
          throw new IOException("an unreadable Content-Length");
        }
      } else {
        this.body = new Body(connection.in, Long.MAX_VALUE, false); // to the connection's end
      }
    }

    int status() {
      return status;
    }

    /** The first value of a header, by its name in lower case; null when absent. */
    String header(String lowerCaseName) {
      return headers.get(lowerCaseName);
    }

    InputStream body() {
      return body;
    }

    /** Reads what is left of the body, at most {@code max} bytes, as UTF-8 text. */
    String text(int max) throws IOException {
      ByteArrayOutputStream text = new ByteArrayOutputStream(256);
      byte[] buffer = new byte[4096];
      for (int n = body.read(buffer); n >= 0; n = body.read(buffer)) {
        if (text.size() + n > max) {
          throw new IOException("a response body longer than " + max + " bytes");
        }
        text.write(buffer, 0, n);
      }
      return text.toString(StandardCharsets.UTF_8);
    }

    /** Whether the connection can take another request: the body ended, and no close was asked. */
    boolean reusable() {
      return !close && body.ended && !body.toConnectionEnd;
    }
  }

  /**
   * A message body: {@code remaining} bytes, or chunks, or everything up to the connection's end.
   */
  private static final class Body extends InputStream {
    private final Input in;
    private final boolean chunked;
    private final boolean toConnectionEnd;
    private final byte[] one = new byte[1];
    private long remaining;
    private boolean ended;

    Body(Input in, long length, boolean chunked) {
      this.in = in;
      this.chunked = chunked;
      this.toConnectionEnd = length == Long.MAX_VALUE;
      this.remaining = chunked ? 0 : length;
      this.ended = !chunked && length == 0;
    }

    @Override
    public int read() throws IOException {
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (ended) {
        return -1;
      }
      if (length == 0) {
        return 0;
      }
      if (remaining == 0 && chunked) {
        remaining = nextChunk();
        if (remaining == 0) {
          ended = true;
          return -1;
        }
      }
      int n = in.read(buffer, offset, (int) Math.min(length, remaining));
      if (n < 0) {
        if (toConnectionEnd) {
          ended = true;
          return -1;
        }
        throw new IOException("the server closed the connection inside a response body");
      }
      remaining -= n;
      if (remaining == 0 && chunked) {
        expectLineEnd();
      } else if (remaining == 0) {
        ended = true;
      }
      return n;
    }

    /** The size of the next chunk; 0 for the last, whose trailer is read and dropped. */
    private long nextChunk() throws IOException {
      String sizeLine = in.line("a chunk line");
      int extension = sizeLine.indexOf(';');
      long size;
      try {
        size =
            Long.parseLong(
                (extension < 0 ? sizeLine : sizeLine.substring(0, extension)).trim(), 16);
      } catch (NumberFormatException e) {
        throw new IOException("an unreadable chunk size");
      }
      if (size < 0) {
        throw new IOException("an unreadable chunk size");
      }
      if (size == 0) {
        while (!in.line("a chunk line").isEmpty()) {
          // trailer fields: none are used
        }
      }
      return size;
    }

    private void expectLineEnd() throws IOException {
      if (!in.line("a chunk line").isEmpty()) {
        throw new IOException("a chunk longer than its size line said");
      }
    }
  }
}
