package dev.toolledger.bench;

import org.HdrHistogram.Histogram;

/** What the harness saw of one scenario in one configuration, summed over its slices. */
final class Measurement {
  final String store;
  final String scenario;
  final int threads;
  final Histogram latencies = new Histogram(3_600_000_000_000L, 3);
  long operations;
  long failures;
  long nanos;

  Measurement(String store, String scenario, int threads) {
    this.store = store;
    this.scenario = scenario;
    this.threads = threads;
  }

  double opsPerSec() {
    return nanos == 0 ? 0 : operations * 1e9 / nanos;
  }

  double p50Ms() {
    return latencies.getValueAtPercentile(50) / 1e6;
  }

  double p99Ms() {
    return latencies.getValueAtPercentile(99) / 1e6;
  }
}
