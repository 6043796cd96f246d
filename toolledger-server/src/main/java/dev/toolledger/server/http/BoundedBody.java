package dev.toolledger.server.http;

import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads a request body up to a limit, for the API and the MCP endpoint alike.
 *
 * <p>An oversized body is read and discarded, up to a bound, before the caller answers 413: a
 * server that answers and closes while the client is still sending makes the client's TCP stack
 * reset the connection, and the client then never sees the 413 (it sees a dropped connection, or a
 * kept-alive connection that dies under its next request). Past the bound the connection is closed
 * instead.
 */
public final class BoundedBody {
  private static final long DRAIN_LIMIT = 1024 * 1024;

  private BoundedBody() {}

  /** The body, or null when it is larger than {@code maxBytes}. */
  public static byte[] read(HttpServletRequest request, int maxBytes) throws IOException {
    long declared = request.getContentLengthLong();
    try (InputStream in = request.getInputStream()) {
      if (declared > maxBytes) {
        drain(in, declared, maxBytes);
        return null;
      }
      if (declared >= 0) {
        return exactly(in, (int) declared);
      }
      byte[] body = in.readNBytes(maxBytes + 1);
      if (body.length > maxBytes) {
        drain(in, -1, maxBytes);
        return null;
      }
      return body;
    }
  }

  /**
   * A body of a declared length (the framing bounds it: no more can follow), read into an array of
   * that size: reading up to the limit instead, as for a chunked body, allocated and cleared a
   * buffer of up to 8 KiB per request and copied the body out of it (a JFR profile of {@code
   * http-replay}). The stream is still read to its end, so that {@link #discardUnread} finds it
   * finished.
   */
  private static byte[] exactly(InputStream in, int length) throws IOException {
    byte[] body = new byte[length];
    int read = 0;
    while (read < length) {
      int n = in.read(body, read, length - read);
      if (n < 0) {
        return java.util.Arrays.copyOf(body, read);
      }
      read += n;
    }
    if (in.read() >= 0) {
      throw new IOException("the body is longer than its Content-Length");
    }
    return body;
  }

  /**
   * Reads and discards what is left of a body that the caller answered without reading: a request
   * refused on its headers (no key, an unknown tool, no token). A connection whose request input is
   * left unread when the answer is out is closed by the server, and a client that had already taken
   * it back into its pool sees its next request die on it ("received no bytes"), which for a POST
   * it must not retry blindly. Draining keeps the connection usable; past the bound the connection
   * is closed as before. Nothing to do for a body already read or absent.
   */
  public static void discardUnread(HttpServletRequest request, int maxBytes) {
    long declared = request.getContentLengthLong();
    if (declared == 0) {
      return;
    }
    try {
      ServletInputStream in = request.getInputStream();
      // A body already read (every call that got as far as its parameters) costs nothing more.
      if (!in.isFinished()) {
        drain(in, declared, maxBytes);
      }
    } catch (IOException | IllegalStateException e) {
      // The body was read through a reader, or the client went away: the server then closes the
      // connection, which is all that is left to do.
    }
  }

  /** The largest body read and discarded to keep a connection usable: 1 MiB or 4 x the limit. */
  public static long drainBound(int maxBytes) {
    return Math.max(DRAIN_LIMIT, 4L * maxBytes);
  }

  private static void drain(InputStream in, long declared, int maxBytes) throws IOException {
    long bound = drainBound(maxBytes);
    if (declared > bound) {
      return;
    }
    long skipped = 0;
    byte[] buffer = new byte[8192];
    int n;
    while (skipped < bound && (n = in.read(buffer)) > 0) {
      skipped += n;
    }
  }
}
