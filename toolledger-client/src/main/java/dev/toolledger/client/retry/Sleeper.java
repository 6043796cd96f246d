package dev.toolledger.client.retry;

import java.time.Duration;

/** Waits between attempts. Tests supply one that advances their {@link Ticker} instead. */
@FunctionalInterface
public interface Sleeper {
  void sleep(Duration duration) throws InterruptedException;

  /** {@link Thread#sleep(long, int)}. */
  static Sleeper system() {
    return duration -> {
      long nanos = duration.toNanos();
      if (nanos > 0) {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      }
    };
  }
}
