package dev.toolledger.client.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * When to try an operation again: an attempt limit, a total deadline, capped exponential backoff
 * with full jitter, the server's {@code Retry-After}, and a retry budget shared by every call that
 * uses one {@link Retrier}.
 *
 * <p>Immutable; build with {@link #builder()}. {@link Builder#build()} rejects bad options and
 * names the option. Each option's default is a named constant.
 *
 * <ul>
 *   <li><b>Backoff</b>: before retry {@code n} (0 for the first retry) the retrier sleeps a
 *       uniformly random time in {@code [0, min(maxDelay, baseDelay * 2^n)]} ("full jitter"), so
 *       clients that failed together do not retry together.
 *   <li><b>Retry-After</b>: a retry waits at least what the server asked for. If that wait would
 *       reach the deadline, the retrier stops instead of sleeping; so does any backoff that would.
 *       No attempt starts at or after the deadline.
 *   <li><b>Budget</b>: a token bucket of {@code budgetTokens}, initially full. Each retry (never a
 *       first attempt) takes one token; each definitive answer puts back {@code budgetRefund}.
 *       While the bucket is at or below {@code budgetFloor}, nothing is retried. So in an outage
 *       the extra load is at most {@code budgetTokens - budgetFloor} attempts in total, and in
 *       steady state retries stay near {@code budgetRefund} per answered call (10% by default), as
 *       in gRPC's retry throttling and the AWS SDKs' standard mode.
 * </ul>
 *
 * <p>What it does not do: decide what is safe to retry. The {@link Attempt} classifies; the policy
 * only says whether and when.
 */
public final class RetryPolicy {
  /** Default attempt limit, the first attempt included: 5. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** Default total deadline from the first attempt: 30 seconds. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  /** Default backoff base: 200 milliseconds. */
  public static final Duration DEFAULT_BASE_DELAY = Duration.ofMillis(200);

  /** Default backoff cap: 5 seconds. */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(5);

  /** Default size of the retry budget's bucket: 20 tokens. */
  public static final double DEFAULT_BUDGET_TOKENS = 20;

  /** Default floor of the retry budget: 10 tokens (half the bucket, as gRPC does). */
  public static final double DEFAULT_BUDGET_FLOOR = 10;

  /** Default tokens put back by each definitive answer: 0.1 (about one retry per ten calls). */
  public static final double DEFAULT_BUDGET_REFUND = 0.1;

  private final int maxAttempts;
  private final Duration deadline;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final double budgetTokens;
  private final double budgetFloor;
  private final double budgetRefund;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final RandomGenerator random;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.deadline = b.deadline;
    this.baseDelay = b.baseDelay;
    this.maxDelay = b.maxDelay;
    this.budgetTokens = b.budgetTokens;
    this.budgetFloor = b.budgetFloor;
    this.budgetRefund = b.budgetRefund;
    this.ticker = b.ticker;
    this.sleeper = b.sleeper;
    this.random = b.random;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The policy with every default. */
  public static RetryPolicy defaults() {
    return builder().build();
  }

  /** A builder starting from this policy's settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxAttempts = maxAttempts;
    b.deadline = deadline;
    b.baseDelay = baseDelay;
    b.maxDelay = maxDelay;
    b.budgetTokens = budgetTokens;
    b.budgetFloor = budgetFloor;
    b.budgetRefund = budgetRefund;
    b.ticker = ticker;
    b.sleeper = sleeper;
    b.random = random;
    return b;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public Duration deadline() {
    return deadline;
  }

  public Duration baseDelay() {
    return baseDelay;
  }

  public Duration maxDelay() {
    return maxDelay;
  }

  public double budgetTokens() {
    return budgetTokens;
  }

  public double budgetFloor() {
    return budgetFloor;
  }

  public double budgetRefund() {
    return budgetRefund;
  }

  public Ticker ticker() {
    return ticker;
  }

  public Sleeper sleeper() {
    return sleeper;
  }

  public RandomGenerator random() {
    return random;
  }

  /** The upper bound of the jittered backoff before retry {@code n}: min(cap, base * 2^n). */
  public Duration backoffCeiling(int retry) {
    if (retry < 0) {
      throw new IllegalArgumentException("retry must not be negative");
    }
    long base = baseDelay.toNanos();
    long cap = maxDelay.toNanos();
    // base * 2^n without overflow: once the shift would overflow, the cap has long been reached.
    if (retry >= 62 || base > (cap >> Math.min(retry, 62))) {
      return maxDelay;
    }
    return Duration.ofNanos(Math.min(cap, base << retry));
  }

  /** A full-jitter delay for retry {@code n}: uniform in [0, {@link #backoffCeiling(int)}]. */
  Duration jitteredBackoff(int retry) {
    long ceiling = backoffCeiling(retry).toNanos();
    return Duration.ofNanos(ceiling == 0 ? 0 : random.nextLong(ceiling + 1));
  }

  @Override
  public String toString() {
    return "RetryPolicy[maxAttempts="
        + maxAttempts
        + ", deadline="
        + deadline
        + ", baseDelay="
        + baseDelay
        + ", maxDelay="
        + maxDelay
        + ", budget="
        + budgetTokens
        + "/floor "
        + budgetFloor
        + "/refund "
        + budgetRefund
        + "]";
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration deadline = DEFAULT_DEADLINE;
    private Duration baseDelay = DEFAULT_BASE_DELAY;
    private Duration maxDelay = DEFAULT_MAX_DELAY;
    private double budgetTokens = DEFAULT_BUDGET_TOKENS;
    private double budgetFloor = DEFAULT_BUDGET_FLOOR;
    private double budgetRefund = DEFAULT_BUDGET_REFUND;
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();
    private RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();

    private Builder() {}

    /**
     * Most attempts per operation, the first one included; 1 means never retry. Default {@value
     * RetryPolicy#DEFAULT_MAX_ATTEMPTS}.
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Total time from the start of the first attempt after which no attempt starts. Default 30
     * seconds.
     */
    public Builder deadline(Duration deadline) {
      this.deadline = deadline;
      return this;
    }

    /**
     * Backoff: the first retry waits up to {@code base}, each later one up to twice the previous
     * bound, never more than {@code max}. Defaults 200 milliseconds and 5 seconds.
     */
    public Builder backoff(Duration base, Duration max) {
      this.baseDelay = base;
      this.maxDelay = max;
      return this;
    }

    /**
     * The retry budget: a bucket of {@code tokens} (default 20), no retries while it holds {@code
     * floor} or fewer (default 10), {@code refund} put back per definitive answer (default 0.1).
     */
    public Builder budget(double tokens, double floor, double refund) {
      this.budgetTokens = tokens;
      this.budgetFloor = floor;
      this.budgetRefund = refund;
      return this;
    }

    /** Monotonic time source for deadlines. Default {@link System#nanoTime()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = ticker;
      return this;
    }

    /** How to wait between attempts. Default {@link Thread#sleep}. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    /**
     * Source of jitter; it must be safe for the threads that share the retrier. Default {@link
     * ThreadLocalRandom} of the calling thread.
     */
    public Builder random(RandomGenerator random) {
      this.random = random;
      return this;
    }

    public RetryPolicy build() {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
      }
      requirePositive("deadline", deadline);
      requirePositive("backoff base", baseDelay);
      requirePositive("backoff max", maxDelay);
      if (maxDelay.compareTo(baseDelay) < 0) {
        throw new IllegalArgumentException("backoff max must not be below backoff base");
      }
      if (!(budgetTokens >= 1) || Double.isInfinite(budgetTokens)) {
        throw new IllegalArgumentException(
            "budget tokens must be a finite number of at least 1, not " + budgetTokens);
      }
      if (!(budgetFloor >= 0 && budgetFloor < budgetTokens)) {
        throw new IllegalArgumentException(
            "budget floor must be at least 0 and below budget tokens (" + budgetTokens + ")");
      }
      if (!(budgetRefund >= 0 && budgetRefund <= budgetTokens)) {
        throw new IllegalArgumentException(
            "budget refund must be between 0 and budget tokens (" + budgetTokens + ")");
      }
      Objects.requireNonNull(ticker, "ticker must not be null");
      Objects.requireNonNull(sleeper, "sleeper must not be null");
      Objects.requireNonNull(random, "random must not be null");
      return new RetryPolicy(this);
    }

    private static void requirePositive(String option, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive");
      }
    }
  }
}
