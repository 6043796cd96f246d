package dev.toolledger.core.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * A rate of new operations: at most {@code permits} per {@code period}, with bursts of up to {@code
 * permits} (a token bucket that holds one period's worth and refills continuously).
 */
public record RateLimit(long permits, Duration period) {
  public RateLimit {
    Objects.requireNonNull(period, "period");
    if (permits < 1) {
      throw new IllegalArgumentException("a rate limit allows at least 1 operation per period");
    }
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("a rate limit's period must be positive");
    }
    if (period.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException("a rate limit's period must be at most a day");
    }
    if (permits > Long.MAX_VALUE / period.toNanos()) {
      throw new IllegalArgumentException(
          "a rate limit of " + permits + " per " + period + " is too large to count");
    }
  }

  public static RateLimit perSecond(long permits) {
    return new RateLimit(permits, Duration.ofSeconds(1));
  }

  @Override
  public String toString() {
    if (period.equals(Duration.ofSeconds(1))) {
      return permits + "/s";
    }
    if (period.equals(Duration.ofMinutes(1))) {
      return permits + "/m";
    }
    if (period.equals(Duration.ofHours(1))) {
      return permits + "/h";
    }
    return permits + "/" + period;
  }
}
