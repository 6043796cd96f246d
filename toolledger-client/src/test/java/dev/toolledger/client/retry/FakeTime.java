package dev.toolledger.client.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A ticker that only moves when something sleeps on it or a test advances it. Records sleeps. */
final class FakeTime implements Ticker, Sleeper {
  private long now = 1_000_000_000L; // arbitrary origin: only differences mean anything
  final List<Duration> sleeps = new ArrayList<>();
  final List<Long> sleepEnds = new ArrayList<>();

  @Override
  public long nanos() {
    return now;
  }

  @Override
  public void sleep(Duration duration) {
    if (duration.isNegative()) {
      throw new AssertionError("asked to sleep a negative time: " + duration);
    }
    sleeps.add(duration);
    now += duration.toNanos();
    sleepEnds.add(now);
  }

  void advance(Duration duration) {
    now += duration.toNanos();
  }
}
