package dev.toolledger.clientmcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads Server-Sent Events from a stream as the HTML Living Standard's "event stream
 * interpretation" defines them, one event at a time, so that a caller can act on an event (for
 * example answer a server's request) before the stream goes on: lines end with CRLF, LF or a lone
 * CR; a line starting with a colon is a comment; {@code field: value} loses one space after the
 * colon; a line without a colon is a field with an empty value; the {@code data} lines of one event
 * are joined with LF; an {@code id} containing NUL is ignored; unknown fields (and {@code retry},
 * which a client that never reconnects has no use for) are ignored; a blank line dispatches the
 * event, unless it has no {@code data} line at all; an event the stream ends in the middle of is
 * dropped. A leading byte-order mark is skipped. The text is UTF-8, decoded per line.
 *
 * <p>Not thread-safe: one reader per response body.
 */
final class SseReader {

  /**
   * One dispatched event: its type ({@code "message"} when the stream named none), its data, and
   * the last event id seen on the stream so far (null when none), as the standard carries it from
   * event to event.
   */
  record Event(String type, String data, String lastEventId) {}

  private final InputStream in;
  private final int maxEventBytes;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  // Read in bulk: the body stream under it decodes chunks, and a call per byte costs more than the
  // parsing.
  private final byte[] buffer = new byte[4096];
  private int position;
  private int limit;
  private String lastEventId;
  private boolean started;
  private int pending = -1;

  /**
   * @param in the response body, positioned at its first byte
   * @param maxEventBytes the most an event's lines may hold together; a larger one fails the read
   */
  SseReader(InputStream in, int maxEventBytes) {
    this.in = in;
    this.maxEventBytes = maxEventBytes;
  }

  /** The next event with data, or null at the end of the stream. */
  Event next() throws IOException {
    String type = null;
    StringBuilder data = null;
    int eventBytes = 0;
    while (true) {
      String text = readLine();
      if (text == null) {
        return null; // an event cut off by the end of the stream is not dispatched
      }
      eventBytes += text.length() + 1;
      if (eventBytes > maxEventBytes) {
        throw new IOException("an SSE event longer than " + maxEventBytes + " bytes");
      }
      if (text.isEmpty()) {
        if (data != null) {
          return new Event(
              type == null || type.isEmpty() ? "message" : type, data.toString(), lastEventId);
        }
        type = null;
        eventBytes = 0;
        continue;
      }
      if (text.charAt(0) == ':') {
        continue;
      }
      int colon = text.indexOf(':');
      String field = colon < 0 ? text : text.substring(0, colon);
      String value = "";
      if (colon >= 0) {
        int from = colon + 1;
        if (from < text.length() && text.charAt(from) == ' ') {
          from++;
        }
        value = text.substring(from);
      }
      switch (field) {
        case "data" -> {
          if (data == null) {
            data = new StringBuilder(value.length());
          } else {
            data.append('\n');
          }
          data.append(value);
        }
        case "event" -> type = value;
        case "id" -> {
          if (value.indexOf('\0') < 0) {
            lastEventId = value;
          }
        }
        default -> {
          // retry and unknown fields: ignored, as the standard says for the latter.
        }
      }
    }
  }

  /** One line without its end, decoded as UTF-8; null at the end of the stream. */
  private String readLine() throws IOException {
    line.reset();
    while (true) {
      int b = pending >= 0 ? pending : read();
      pending = -1;
      if (b < 0) {
        // A last line without its end belongs to an event that was never dispatched.
        return null;
      }
      if (b == '\n') {
        return decoded();
      }
      if (b == '\r') {
        int after = read();
        if (after != '\n' && after >= 0) {
          pending = after;
        }
        return decoded();
      }
      line.write(b);
      if (line.size() > maxEventBytes) {
        throw new IOException("an SSE line longer than " + maxEventBytes + " bytes");
      }
    }
  }

  private int read() throws IOException {
    if (position == limit) {
      int n = in.read(buffer, 0, buffer.length);
      if (n <= 0) {
        return -1;
      }
      position = 0;
      limit = n;
    }
    return buffer[position++] & 0xFF;
  }

  private String decoded() {
    String text = line.toString(StandardCharsets.UTF_8);
    if (!started) {
      started = true;
      if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
        return text.substring(1);
      }
    }
    return text;
  }
}
