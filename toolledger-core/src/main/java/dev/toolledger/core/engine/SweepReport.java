package dev.toolledger.core.engine;

/**
 * What one sweep pass did.
 *
 * @param swept expired operations deleted (each leaving a tombstone unless its window was over)
 * @param pruned tombstones deleted because their window ended
 * @param transactions write transactions the pass used, one per batch
 */
public record SweepReport(long swept, long pruned, int transactions) {
  @Override
  public String toString() {
    return "swept " + swept + " expired operations, pruned " + pruned + " tombstones";
  }
}
