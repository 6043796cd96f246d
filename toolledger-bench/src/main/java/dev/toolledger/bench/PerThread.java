package dev.toolledger.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Something each harness thread holds for itself (an MCP session, a read connection), opened on the
 * thread's first call, which falls in the warm-up round, so that opening it is never timed. Each
 * harness thread number is run by one worker at a time, so a thread's value is opened once.
 */
final class PerThread<T> {
  @FunctionalInterface
  interface Opener<T> {
    T open(int thread) throws Exception;
  }

  @FunctionalInterface
  interface Closer<T> {
    void close(int thread, T value) throws Exception;
  }

  private final Opener<T> opener;
  private final Map<Integer, T> values = new ConcurrentHashMap<>();

  PerThread(Opener<T> opener) {
    this.opener = opener;
  }

  /** Thread {@code thread}'s value, opened now if this is its first call. */
  T get(int thread) throws Exception {
    T value = values.get(thread);
    if (value == null) {
      value = opener.open(thread);
      values.put(thread, value);
    }
    return value;
  }

  /** Closes every thread's value with {@code closer} and forgets them; stops at the first error. */
  void closeAll(Closer<T> closer) throws Exception {
    try {
      for (Map.Entry<Integer, T> entry : values.entrySet()) {
        closer.close(entry.getKey(), entry.getValue());
      }
    } finally {
      values.clear();
    }
  }
}
