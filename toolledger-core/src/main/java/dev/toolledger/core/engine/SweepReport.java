package dev.toolledger.core.engine;

import java.time.Duration;

/**
 * What one sweep pass did.
 *
 * @param swept expired operations deleted (each leaving a tombstone unless its window was over)
 * @param pruned tombstones deleted because their window ended
 * @param transactions write transactions the pass used, one per batch
 * @param longestBatch the longest of those transactions, from its start to its commit
 * @param batchTime all of those transactions together, from each one's start to its commit: the
 *     time the pass held (or waited for) the write lock, without its pauses
 * @param complete false when the pass was interrupted before it ran out of work
 */
public record SweepReport(
    long swept,
    long pruned,
    int transactions,
    Duration longestBatch,
    Duration batchTime,
    boolean complete) {
  @Override
  public String toString() {
    return "swept " + swept + " expired operations, pruned " + pruned + " tombstones";
  }
}
