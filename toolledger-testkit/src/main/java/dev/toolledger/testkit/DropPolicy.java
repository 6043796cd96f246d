package dev.toolledger.testkit;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** Decides which responses the proxy swallows after the server has sent them. */
@FunctionalInterface
public interface DropPolicy {

  /** Returns true to drop this response and close the client's connection. */
  boolean drop(Exchange exchange);

  static DropPolicy never() {
    return exchange -> false;
  }

  /** Drops the next {@code count} responses that match, then forwards everything. */
  static DropPolicy next(int count, Predicate<Exchange> matching) {
    AtomicInteger left = new AtomicInteger(count);
    return exchange -> matching.test(exchange) && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  /** Drops each matching response with probability {@code fraction}, reproducibly for a seed. */
  static DropPolicy fraction(double fraction, long seed, Predicate<Exchange> matching) {
    if (fraction < 0 || fraction > 1) {
      throw new IllegalArgumentException("fraction must be between 0 and 1");
    }
    SplittableRandom random = new SplittableRandom(seed);
    return exchange -> {
      if (!matching.test(exchange)) {
        return false;
      }
      synchronized (random) {
        return random.nextDouble() < fraction;
      }
    };
  }

  /** Matches POST requests (writes), leaving lookups alone. */
  static Predicate<Exchange> posts() {
    return exchange -> exchange.method().equals("POST");
  }
}
