package dev.toolledger.client.retry;

/** Why {@link Retrier} stopped without a definitive answer. */
public enum StopReason {
  /** The policy's attempt limit was used up. */
  ATTEMPTS_EXHAUSTED,
  /** The next attempt would have started at or after the deadline. */
  DEADLINE_REACHED,
  /** The server asked to wait past the deadline ({@code Retry-After}). */
  RETRY_AFTER_PAST_DEADLINE,
  /** The retry budget was at or below its floor: too many recent failures across all calls. */
  BUDGET_EXHAUSTED,
  /** The calling thread was interrupted; its interrupt flag is set again. */
  INTERRUPTED
}
