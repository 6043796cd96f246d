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

  /** Commits of the ledger's store during the measured slices (group commit shares them). */
  long commits;

  /** CPU time of this process during the measured slices (clients and server alike). */
  long cpuNanos;

  /**
   * CPU time of the node's own threads (those named {@code toolledger-*}: Jetty's request threads,
   * the MCP engine threads, the stores' threads) during the measured slices: the server side alone,
   * without the clients. Threads that end within a slice lose their share, so it is a lower bound.
   */
  long serverCpuNanos;

  Measurement(String store, String scenario, int threads) {
    this.store = store;
    this.scenario = scenario;
    this.threads = threads;
  }

  double opsPerSec() {
    return nanos == 0 ? 0 : operations * 1e9 / nanos;
  }

  /** This process's CPU per operation, in microseconds; 0 when nothing was counted. */
  double cpuMicrosPerOp() {
    return operations == 0 ? 0 : cpuNanos / 1e3 / operations;
  }

  /** The node's threads' CPU per operation, in microseconds; 0 when nothing was counted. */
  double serverCpuMicrosPerOp() {
    return operations == 0 ? 0 : serverCpuNanos / 1e3 / operations;
  }

  /** Operations per commit of the ledger's store; 0 when it did not commit. */
  double opsPerCommit() {
    return commits == 0 ? 0 : (double) operations / commits;
  }

  double p50Ms() {
    return latencies.getValueAtPercentile(50) / 1e6;
  }

  double p99Ms() {
    return latencies.getValueAtPercentile(99) / 1e6;
  }
}
