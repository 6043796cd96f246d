package dev.toolledger.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it, so that retention, tombstone windows and rate
 * limits can be crossed without waiting for them.
 */
public final class MovableClock extends Clock {
  private final AtomicReference<Instant> now;

  public MovableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** A clock standing at a fixed, whole-millisecond instant. */
  public static MovableClock at(String instant) {
    return new MovableClock(Instant.parse(instant));
  }

  /** Moves the clock forward (or back, for a negative duration). */
  public void advance(Duration duration) {
    now.updateAndGet(instant -> instant.plus(duration));
  }

  public void set(Instant instant) {
    now.set(instant);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a MovableClock is always UTC");
  }
}
