package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * One token bucket per tenant for the new operations this node starts. In memory and per node: with
 * N nodes behind a balancer a tenant may start up to N times the rate. Time comes from the engine's
 * clock, so that tests move it instead of waiting.
 */
final class NewOperationLimiter {
  /** Beyond this many tenants, full buckets (which hold no state worth keeping) are dropped. */
  private static final int TIDY_ABOVE = 10_000;

  private final RateLimit limit;
  private final Clock clock;
  // Exact integer arithmetic: one permit is worth periodNanos units, time refills permits units per
  // nanosecond, so a bucket of "3 per minute" is full again after exactly 20 s per permit.
  private final long periodNanos;
  private final long permits;
  private final long capacity;
  private final ConcurrentMap<TenantId, Bucket> buckets = new ConcurrentHashMap<>();

  NewOperationLimiter(RateLimit limit, Clock clock) {
    this.limit = limit;
    this.clock = clock;
    this.periodNanos = limit.period().toNanos();
    this.permits = limit.permits();
    this.capacity = Math.multiplyExact(permits, periodNanos);
  }

  /**
   * Takes one permit for {@code tenant}.
   *
   * @return empty when granted; otherwise how long until a permit is free
   */
  Optional<Duration> acquire(TenantId tenant) {
    long now = nanos();
    if (buckets.size() > TIDY_ABOVE) {
      buckets.values().removeIf(bucket -> bucket.isFull(now));
    }
    return buckets.computeIfAbsent(tenant, t -> new Bucket(now)).take(now);
  }

  /**
   * The answer to a refused permit, of this limiter or of shared buckets: retry after the refill,
   * in whole seconds and at least one.
   */
  static ExecutionOutcome.RateLimited refused(Duration refill) {
    long seconds = refill.getSeconds() + (refill.getNano() > 0 ? 1 : 0);
    return new ExecutionOutcome.RateLimited(Duration.ofSeconds(Math.max(1, seconds)));
  }

  private long nanos() {
    java.time.Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  private final class Bucket {
    private long units = capacity;
    private long refilledAt;

    Bucket(long now) {
      this.refilledAt = now;
    }

    synchronized Optional<Duration> take(long now) {
      refill(now);
      if (units >= periodNanos) {
        units -= periodNanos;
        return Optional.empty();
      }
      long missing = periodNanos - units;
      return Optional.of(Duration.ofNanos((missing + permits - 1) / permits));
    }

    synchronized boolean isFull(long now) {
      refill(now);
      return units >= capacity;
    }

    private void refill(long now) {
      // A clock that steps back refills nothing; beyond one period the bucket is full anyway.
      long elapsed = Math.min(Math.max(0, now - refilledAt), periodNanos);
      units = Math.min(capacity, units + elapsed * permits);
      refilledAt = Math.max(refilledAt, now);
    }
  }

  @Override
  public String toString() {
    return "NewOperationLimiter[" + limit + " per tenant]";
  }
}
