package dev.toolledger.guard;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;

/** Notices the end of the host's input: the host closed stdin, so the guard's work is over. */
final class EndOfInput extends FilterInputStream {
  private final CountDownLatch ended = new CountDownLatch(1);

  EndOfInput(InputStream in) {
    super(in);
  }

  void await() throws InterruptedException {
    ended.await();
  }

  @Override
  public int read() throws IOException {
    try {
      int n = super.read();
      if (n < 0) {
        ended.countDown();
      }
      return n;
    } catch (IOException | RuntimeException e) {
      ended.countDown();
      throw e;
    }
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    try {
      int n = super.read(b, off, len);
      if (n < 0) {
        ended.countDown();
      }
      return n;
    } catch (IOException | RuntimeException e) {
      ended.countDown();
      throw e;
    }
  }
}
