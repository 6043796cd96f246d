package dev.toolledger.client.retry;

import java.util.Objects;

/**
 * How a retried operation ended: with a definitive answer, or with none. "Gave up" is not failure:
 * it means nobody knows whether the operation took effect.
 *
 * @param <T> the definitive answer
 */
public sealed interface RetryResult<T> {

  /** Attempts made, the first one included. */
  int attempts();

  /** A definitive answer, on attempt {@code attempts}. */
  record Answered<T>(T value, int attempts) implements RetryResult<T> {
    public Answered {
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * No definitive answer.
   *
   * @param reason why the retrier stopped
   * @param lastFailure the last attempt's {@link AttemptResult.Retry#reason()}, or empty when no
   *     attempt was made
   */
  record GaveUp<T>(StopReason reason, String lastFailure, int attempts) implements RetryResult<T> {
    public GaveUp {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(lastFailure, "lastFailure");
    }

    /**
     * One line for logs and for an {@code Unknown} outcome, e.g. "deadline reached after 3 ...".
     */
    public String describe() {
      String why =
          switch (reason) {
            case ATTEMPTS_EXHAUSTED -> "attempt limit reached";
            case DEADLINE_REACHED -> "deadline reached";
            case RETRY_AFTER_PAST_DEADLINE -> "server asked to wait past the deadline";
            case BUDGET_EXHAUSTED -> "retry budget exhausted";
            case INTERRUPTED -> "interrupted";
          };
      return why
          + " after "
          + attempts
          + (attempts == 1 ? " attempt" : " attempts")
          + (lastFailure.isEmpty() ? "" : " (last: " + lastFailure + ")");
    }
  }
}
