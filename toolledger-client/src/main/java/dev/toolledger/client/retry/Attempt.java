package dev.toolledger.client.retry;

import java.time.Duration;

/**
 * One try of an operation, for example one HTTP request or one MCP {@code tools/call}. It must not
 * retry by itself (retries happen at one layer only) and should report every failure it can
 * classify as an {@link AttemptResult} rather than throw.
 *
 * @param <T> the definitive answer
 */
@FunctionalInterface
public interface Attempt<T> {

  /**
   * Makes one attempt.
   *
   * @param number 1 for the first attempt, 2 for the first retry, ...
   * @param remaining time left until the policy's deadline; an attempt should not wait longer (for
   *     example, cap its request timeout to it)
   */
  AttemptResult<T> run(int number, Duration remaining);
}
