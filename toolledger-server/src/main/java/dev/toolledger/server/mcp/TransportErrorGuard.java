package dev.toolledger.server.mcp;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * Hands the transport the response, except an error: once it sets a status of 400 or more (or calls
 * {@code sendError}), what it writes is dropped, so that the gate answers a stable error instead
 * (the servlet container's error page, or an exception serialized by a transport, never reaches a
 * client).
 */
final class TransportErrorGuard extends HttpServletResponseWrapper {
  private int failedWith;

  TransportErrorGuard(HttpServletResponse response) {
    super(response);
  }

  /** The error status the transport chose, or 0. */
  int failedWith() {
    return failedWith;
  }

  @Override
  public void setStatus(int sc) {
    if (sc >= 400) {
      failedWith = sc;
    } else if (failedWith == 0) {
      super.setStatus(sc);
    }
  }

  @Override
  public void sendError(int sc, String msg) {
    failedWith = sc;
  }

  @Override
  public void sendError(int sc) {
    failedWith = sc;
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    return failedWith != 0 ? new PrintWriter(Writer.nullWriter()) : super.getWriter();
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (failedWith == 0) {
      return super.getOutputStream();
    }
    return new ServletOutputStream() {
      @Override
      public void write(int b) {}

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setWriteListener(WriteListener listener) {}
    };
  }
}
