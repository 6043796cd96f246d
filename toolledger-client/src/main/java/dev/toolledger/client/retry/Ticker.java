package dev.toolledger.client.retry;

/**
 * A monotonic time source in nanoseconds, like {@link System#nanoTime()}: only differences between
 * two readings mean anything. Deadlines are measured with it, so a wall-clock step (NTP, a
 * suspended laptop) cannot stretch or cut a deadline. Tests supply one they move forward.
 */
@FunctionalInterface
public interface Ticker {
  long nanos();

  /** {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
