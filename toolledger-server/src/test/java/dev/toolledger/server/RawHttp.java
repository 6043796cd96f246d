package dev.toolledger.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * An HTTP/1.1 exchange over a plain socket, so that a test can send bytes that {@code
 * java.net.http} refuses to send (control characters in headers, invalid UTF-8, duplicate headers).
 */
public final class RawHttp {
  private RawHttp() {}

  public record Response(int status, String head, String body) {
    public String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }

    public boolean isProblem() {
      String type = header("Content-Type");
      return type != null && type.toLowerCase(Locale.ROOT).startsWith("application/problem+json");
    }
  }

  /** Sends {@code head} (request line and headers, without the blank line) and {@code body}. */
  public static Response exchange(URI base, byte[] head, byte[] body) {
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(head);
        out.write(
            ("\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
      } catch (IOException refusedEarly) {
        // The server may answer and close before it has read everything (a bad header, a body
        // over the limit): its answer is still there to read.
      }
      byte[] all = readAll(socket.getInputStream());
      String text = new String(all, StandardCharsets.UTF_8);
      int end = text.indexOf("\r\n\r\n");
      String responseHead = end < 0 ? text : text.substring(0, end);
      String responseBody = end < 0 ? "" : text.substring(end + 4);
      String[] statusLine = responseHead.split("\r\n", 2)[0].split(" ");
      return new Response(Integer.parseInt(statusLine[1]), responseHead, responseBody);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    in.transferTo(bytes);
    return bytes.toByteArray();
  }

  /**
   * Sends {@code head} (request line and headers, without Content-Length or the blank line), waits
   * until the server has answered on the headers alone, then sends {@code body} and a {@code GET
   * /health} on the same kept-alive connection: the two statuses, in order. The second is what a
   * client that pooled the connection after the first answer gets for its next request.
   */
  public static int[] refusedThenNextOnSameConnection(URI base, String head, byte[] body)
      throws IOException, InterruptedException {
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(ascii(head + "\r\nContent-Length: " + body.length + "\r\n\r\n"));
      out.flush();
      Thread.sleep(300); // the body arrives after the server has decided
      out.write(body);
      out.write(ascii("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      out.flush();
      InputStream in = socket.getInputStream();
      int first = statusOfNextResponse(in);
      return new int[] {first, statusOfNextResponse(in)};
    }
  }

  /** Reads one response (head and Content-Length body) off a kept-alive connection. */
  public static int statusOfNextResponse(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("the server closed the connection; read so far: " + head);
      }
      head.write(b);
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    int length = 0;
    for (String line : text.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    in.readNBytes(length);
    return Integer.parseInt(text.split(" ")[1]);
  }

  public static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }
}
