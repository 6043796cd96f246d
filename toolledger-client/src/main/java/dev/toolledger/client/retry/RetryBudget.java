package dev.toolledger.client.retry;

/**
 * The token bucket behind a {@link Retrier}: retries take tokens, answers put a fraction back, and
 * nothing is retried while the bucket is at or below its floor. Thread-safe.
 */
final class RetryBudget {
  private final double capacity;
  private final double floor;
  private final double refund;
  private double tokens;

  RetryBudget(double capacity, double floor, double refund) {
    this.capacity = capacity;
    this.floor = floor;
    this.refund = refund;
    this.tokens = capacity;
  }

  /** Takes one token for a retry, or answers false (and takes nothing) at or below the floor. */
  synchronized boolean tryAcquireRetry() {
    if (tokens <= floor) {
      return false;
    }
    tokens = Math.max(0, tokens - 1);
    return true;
  }

  /** A definitive answer: the service is reachable again, so retries may slowly resume. */
  synchronized void onAnswer() {
    tokens = Math.min(capacity, tokens + refund);
  }

  synchronized double tokens() {
    return tokens;
  }
}
