package dev.toolledger.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * One HTTP/1.1 message read off a socket as raw bytes: enough framing (Content-Length, chunked, or
 * until close) to know where a message ends, nothing more.
 */
// Never compared or hashed: it carries the bytes to forward, so identity equality is harmless.
@SuppressWarnings("ArrayRecordComponent")
record HttpMessage(String startLine, byte[] raw, int headLength, boolean endsAtClose) {
  private static final int MAX_HEAD = 64 * 1024;

  /** Reads one request; null at a clean end of stream before any byte. */
  static HttpMessage readRequest(InputStream in) throws IOException {
    return read(in, true);
  }

  /** Reads one response; null at a clean end of stream before any byte. */
  static HttpMessage readResponse(InputStream in) throws IOException {
    return read(in, false);
  }

  /** The status code of a response's start line. */
  int status() {
    String[] parts = startLine.split(" ", 3);
    return Integer.parseInt(parts[1]);
  }

  /** The method of a request's start line. */
  String method() {
    return startLine.split(" ", 2)[0];
  }

  /** The bytes after the head, as received (a chunked body keeps its chunk framing). */
  byte[] body() {
    return Arrays.copyOfRange(raw, headLength, raw.length);
  }

  private static HttpMessage read(InputStream in, boolean request) throws IOException {
    ByteArrayOutputStream raw = new ByteArrayOutputStream(512);
    int lastFour = 0;
    while (lastFour != 0x0D0A0D0A) {
      int b = in.read();
      if (b < 0) {
        if (raw.size() == 0) {
          return null;
        }
        throw new EOFException("the stream ended inside an HTTP message head");
      }
      raw.write(b);
      if (raw.size() > MAX_HEAD) {
        throw new IOException("HTTP message head larger than " + MAX_HEAD + " bytes");
      }
      lastFour = (lastFour << 8) | b;
    }
    int headLength = raw.size();
    String head = raw.toString(StandardCharsets.ISO_8859_1);
    String[] lines = head.split("\r\n", -1);
    String startLine = lines[0];
    long contentLength = -1;
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).trim();
      if (name.equals("content-length")) {
        contentLength = Long.parseLong(value);
      } else if (name.equals("transfer-encoding")
          && value.toLowerCase(Locale.ROOT).contains("chunked")) {
        chunked = true;
      }
    }
    if (!request) {
      int status = Integer.parseInt(startLine.split(" ", 3)[1]);
      if (status < 200 || status == 204 || status == 304) {
        return new HttpMessage(startLine, raw.toByteArray(), headLength, false);
      }
    }
    if (chunked) {
      copyChunked(in, raw);
      return new HttpMessage(startLine, raw.toByteArray(), headLength, false);
    }
    if (contentLength >= 0) {
      copyExactly(in, raw, contentLength);
      return new HttpMessage(startLine, raw.toByteArray(), headLength, false);
    }
    if (request) {
      return new HttpMessage(startLine, raw.toByteArray(), headLength, false);
    }
    in.transferTo(raw);
    return new HttpMessage(startLine, raw.toByteArray(), headLength, true);
  }

  private static void copyExactly(InputStream in, ByteArrayOutputStream out, long length)
      throws IOException {
    byte[] buffer = new byte[8192];
    long left = length;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        throw new EOFException("the stream ended inside an HTTP message body");
      }
      out.write(buffer, 0, n);
      left -= n;
    }
  }

  private static void copyChunked(InputStream in, ByteArrayOutputStream out) throws IOException {
    while (true) {
      String sizeLine = readLine(in, out);
      int semicolon = sizeLine.indexOf(';');
      long size =
          Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        // Trailers, then an empty line.
        while (!readLine(in, out).isEmpty()) {
          // skip trailer lines
        }
        return;
      }
      copyExactly(in, out, size);
      readLine(in, out);
    }
  }

  private static String readLine(InputStream in, ByteArrayOutputStream out) throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("the stream ended inside a chunked body");
      }
      out.write(b);
      if (b == '\n') {
        int len = line.length();
        if (len > 0 && line.charAt(len - 1) == '\r') {
          line.setLength(len - 1);
        }
        return line.toString();
      }
      line.append((char) b);
    }
  }
}
