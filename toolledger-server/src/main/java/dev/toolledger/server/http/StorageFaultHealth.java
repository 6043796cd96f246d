package dev.toolledger.server.http;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.OutcomeListener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A health check that also remembers the writes callers made: unhealthy from a write that failed
 * for storage reasons (a caller answered {@code ledger-unavailable}) until a write succeeds again,
 * whether a caller's or a probe's that needs fresh space as a new operation does.
 *
 * <p>Why: the usual probe rewrites one small row in place, which a full disk still lets through
 * while every new operation fails; {@code /health} then said ok while every write was refused.
 * After a fault, the growing probe (at most once a second) decides instead, so that {@code /health}
 * turns ok by itself once the space is back, without waiting for a caller to try.
 */
public final class StorageFaultHealth implements HealthCheck, OutcomeListener {
  private static final long REUSE_NANOS = Duration.ofSeconds(1).toNanos();

  private final HealthCheck probe;
  private final HealthCheck growingProbe;
  private final AtomicLong faults = new AtomicLong();
  private final AtomicLong faultsSettled = new AtomicLong();
  private final Object growingLock = new Object();
  private long grownAtNanos;
  private String grown;

  /**
   * @param probe the usual check
   * @param growingProbe a write that needs fresh space, run after a fault until it succeeds
   */
  public StorageFaultHealth(HealthCheck probe, HealthCheck growingProbe) {
    this.probe = probe;
    this.growingProbe = growingProbe;
  }

  @Override
  public String problem() {
    String problem = probe.problem();
    if (problem != null) {
      return problem;
    }
    long seen = faults.get();
    if (seen == faultsSettled.get()) {
      return null;
    }
    synchronized (growingLock) {
      long now = System.nanoTime();
      if (grown == null || now - grownAtNanos >= REUSE_NANOS) {
        String result = growingProbe.problem();
        grownAtNanos = System.nanoTime();
        grown = result == null ? "" : result;
        if (result == null) {
          faultsSettled.accumulateAndGet(seen, Math::max);
        }
      }
      return grown.isEmpty() ? null : grown;
    }
  }

  @Override
  public void onOutcome(TenantId tenant, String tool, String kind, Duration duration) {
    if (kind.equals("executed")) {
      faultsSettled.accumulateAndGet(faults.get(), Math::max);
    }
  }

  @Override
  public void onStorageFault() {
    faults.incrementAndGet();
    synchronized (growingLock) {
      grown = null;
    }
  }
}
