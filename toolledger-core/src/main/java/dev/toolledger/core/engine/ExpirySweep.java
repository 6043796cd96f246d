package dev.toolledger.core.engine;

import dev.toolledger.core.store.TransactionWork;
import java.time.Duration;
import java.time.Instant;

/**
 * One sweep pass ({@link LedgerEngine#sweep}): expired records deleted a batch per transaction,
 * each leaving a tombstone, then tombstones whose window ended, with pauses between batches as the
 * {@link SweepPacing} says.
 */
final class ExpirySweep {
  private final EngineConfig config;
  private final Writes writes;
  private final SweepPacing sweepPacing;

  ExpirySweep(EngineConfig config, Writes writes, SweepPacing sweepPacing) {
    this.config = config;
    this.writes = writes;
    this.sweepPacing = sweepPacing;
  }

  /** See {@link LedgerEngine#sweep}. */
  SweepReport run(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1");
    }
    Instant now = config.clock().instant();
    Pass pass = new Pass(System.nanoTime(), writes.expiring.sum());
    Batches swept =
        inBatches(tx -> tx.sweepExpired(now, config.tombstoneWindow(), batchSize), batchSize, pass);
    Batches pruned =
        swept.complete()
            ? inBatches(tx -> tx.pruneTombstones(now, batchSize), batchSize, pass)
            : new Batches(0, 0, 0, 0, false);
    return new SweepReport(
        swept.rows(),
        pruned.rows(),
        swept.transactions() + pruned.transactions(),
        Duration.ofNanos(Math.max(swept.longestNanos(), pruned.longestNanos())),
        Duration.ofNanos(swept.totalNanos() + pruned.totalNanos()),
        pruned.complete());
  }

  /** What {@link #inBatches} did. */
  private record Batches(
      long rows, int transactions, long longestNanos, long totalNanos, boolean complete) {}

  /** When a sweep pass began, and how many records this node had created by then. */
  private record Pass(long startNanos, long createdBefore) {}

  /**
   * Runs {@code batch} (which handles at most {@code batchSize} rows) in one write transaction
   * after another until one comes back short, pausing after each full one; stops early when
   * interrupted.
   */
  private Batches inBatches(TransactionWork<Integer> batch, int batchSize, Pass pass) {
    long rows = 0;
    int transactions = 0;
    long longest = 0;
    long total = 0;
    int n;
    do {
      long start = System.nanoTime();
      n = writes.run(batch);
      long end = System.nanoTime();
      long took = end - start;
      longest = Math.max(longest, took);
      total += took;
      rows += n;
      transactions++;
      if (n >= batchSize) {
        long pause =
            sweepPacing.pauseNanos(
                took, n, writes.expiring.sum() - pass.createdBefore(), end - pass.startNanos());
        if (!pauseForWriters(pause)) {
          return new Batches(rows, transactions, longest, total, false);
        }
      }
    } while (n >= batchSize);
    return new Batches(rows, transactions, longest, total, true);
  }

  /** Sleeps between sweep batches; false (flag kept) when the thread is interrupted. */
  private static boolean pauseForWriters(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
