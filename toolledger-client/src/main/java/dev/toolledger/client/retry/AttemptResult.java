package dev.toolledger.client.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What one attempt learned: a definitive answer, or a failure that another attempt may get past.
 * Whether a failure is retryable is the caller's knowledge (it knows the protocol); {@link Retrier}
 * only decides whether and when to try again.
 *
 * @param <T> the definitive answer
 */
public sealed interface AttemptResult<T> {

  /** A definitive answer; it is never retried, whatever it says. */
  record Done<T>(T value) implements AttemptResult<T> {
    public Done {
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * No definitive answer, and trying again with the same identity is safe.
   *
   * @param reason short description for logs and for the final "gave up" report; no secrets, no
   *     parameters, no response bodies
   * @param retryAfter the server's {@code Retry-After}, if it sent one: the next attempt starts no
   *     sooner
   */
  record Retry<T>(String reason, Optional<Duration> retryAfter) implements AttemptResult<T> {
    public Retry {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(retryAfter, "retryAfter");
      retryAfter.ifPresent(
          d -> {
            if (d.isNegative()) {
              throw new IllegalArgumentException("retryAfter must not be negative");
            }
          });
    }
  }

  static <T> AttemptResult<T> done(T value) {
    return new Done<>(value);
  }

  static <T> AttemptResult<T> retry(String reason) {
    return new Retry<>(reason, Optional.empty());
  }

  static <T> AttemptResult<T> retryAfter(String reason, Optional<Duration> retryAfter) {
    return new Retry<>(reason, retryAfter);
  }
}
