package dev.toolledger.server.mcp;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An MCP server on stdio. It ends when the client closes the input; {@link #close()} then waits for
 * tool calls that are still running so that each records its outcome.
 */
public final class McpStdio implements AutoCloseable {
  private final McpService service;
  private final EndOfInput input;
  private final AtomicBoolean closed = new AtomicBoolean();

  McpStdio(McpService service, EndOfInput input) {
    this.service = service;
    this.input = input;
  }

  /** Blocks until the client closes the input stream (or reading it fails). */
  public void awaitEndOfInput() throws InterruptedException {
    input.ended.await();
  }

  /** Closes the session and waits (up to the drain timeout) for running tool calls. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      service.close();
    }
  }

  /** Notices the end of the client's input. */
  static final class EndOfInput extends FilterInputStream {
    private final CountDownLatch ended = new CountDownLatch(1);

    EndOfInput(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      return noticed(() -> super.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return noticed(() -> super.read(b, off, len));
    }

    private int noticed(IoRead read) throws IOException {
      try {
        int n = read.get();
        if (n < 0) {
          ended.countDown();
        }
        return n;
      } catch (IOException | RuntimeException e) {
        ended.countDown();
        throw e;
      }
    }

    @FunctionalInterface
    private interface IoRead {
      int get() throws IOException;
    }
  }
}
