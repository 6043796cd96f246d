package dev.toolledger.server.mcp;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.StringReader;

/** A request whose body was read (and checked) already, handed on with that same body. */
final class CachedBodyRequest extends HttpServletRequestWrapper {
  private final byte[] body;
  private final String text;

  CachedBodyRequest(HttpServletRequest request, byte[] body, String text) {
    super(request);
    this.body = body;
    this.text = text;
  }

  @Override
  public ServletInputStream getInputStream() {
    ByteArrayInputStream in = new ByteArrayInputStream(body);
    return new ServletInputStream() {
      @Override
      public int read() {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, len);
      }

      @Override
      public boolean isFinished() {
        return in.available() == 0;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new IllegalStateException("the body was read already");
      }
    };
  }

  @Override
  public BufferedReader getReader() {
    // Decoded once, strictly, by the gate: the SDK reads exactly the text that was checked.
    return new BufferedReader(new StringReader(text));
  }
}
