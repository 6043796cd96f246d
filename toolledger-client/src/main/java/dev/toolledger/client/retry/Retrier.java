package dev.toolledger.client.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs attempts under a {@link RetryPolicy} and owns the policy's retry budget. Share one retrier
 * among all calls to one service, so that the budget sees all of them; it is thread-safe.
 *
 * <p>Guarantees: at most {@link RetryPolicy#maxAttempts()} attempts; none starts at or after the
 * deadline; no sleep ends at or after the deadline; a definitive answer ({@link
 * AttemptResult.Done}) is returned as it is, never retried; a {@code Retry-After} is waited out in
 * full or not at all. An attempt that throws is not retried: the exception propagates.
 *
 * <p>The retrier itself is protocol-neutral: the HTTP client of this module and, for example, an
 * MCP client use the same one.
 */
public final class Retrier {
  private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

  private final RetryPolicy policy;
  private final RetryBudget budget;

  private Retrier(RetryPolicy policy) {
    this.policy = policy;
    this.budget =
        new RetryBudget(policy.budgetTokens(), policy.budgetFloor(), policy.budgetRefund());
  }

  /** A retrier with a full budget. */
  public static Retrier of(RetryPolicy policy) {
    return new Retrier(Objects.requireNonNull(policy, "policy"));
  }

  public RetryPolicy policy() {
    return policy;
  }

  /** Tokens now in the retry budget, for metrics. */
  public double budgetTokens() {
    return budget.tokens();
  }

  /** Runs {@code attempt} until it answers definitively or the policy says stop. */
  public <T> RetryResult<T> run(Attempt<T> attempt) {
    Objects.requireNonNull(attempt, "attempt");
    Ticker ticker = policy.ticker();
    long deadline = ticker.nanos() + policy.deadline().toNanos();
    String lastFailure = "";
    for (int number = 1; ; number++) {
      long remaining = deadline - ticker.nanos();
      if (remaining <= 0) {
        return new RetryResult.GaveUp<>(StopReason.DEADLINE_REACHED, lastFailure, number - 1);
      }
      AttemptResult<T> result = attempt.run(number, Duration.ofNanos(remaining));
      if (result instanceof AttemptResult.Done<T> done) {
        budget.onAnswer();
        return new RetryResult.Answered<>(done.value(), number);
      }
      AttemptResult.Retry<T> retry = (AttemptResult.Retry<T>) result;
      lastFailure = retry.reason();
      if (number >= policy.maxAttempts()) {
        return new RetryResult.GaveUp<>(StopReason.ATTEMPTS_EXHAUSTED, lastFailure, number);
      }
      Duration delay = policy.jitteredBackoff(number - 1);
      Optional<Duration> retryAfter = retry.retryAfter();
      boolean serverDelay = retryAfter.isPresent() && retryAfter.get().compareTo(delay) > 0;
      if (serverDelay) {
        delay = retryAfter.get();
      }
      // Compared as durations: a huge Retry-After must stop the retrier, not overflow it.
      if (delay.compareTo(Duration.ofNanos(deadline - ticker.nanos())) >= 0) {
        return new RetryResult.GaveUp<>(
            serverDelay ? StopReason.RETRY_AFTER_PAST_DEADLINE : StopReason.DEADLINE_REACHED,
            lastFailure,
            number);
      }
      if (Thread.currentThread().isInterrupted()) {
        return new RetryResult.GaveUp<>(StopReason.INTERRUPTED, lastFailure, number);
      }
      if (!budget.tryAcquireRetry()) {
        return new RetryResult.GaveUp<>(StopReason.BUDGET_EXHAUSTED, lastFailure, number);
      }
      LOG.debug("attempt {} failed ({}); retrying in {} ms", number, lastFailure, delay.toMillis());
      try {
        policy.sleeper().sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new RetryResult.GaveUp<>(StopReason.INTERRUPTED, lastFailure, number);
      }
    }
  }
}
