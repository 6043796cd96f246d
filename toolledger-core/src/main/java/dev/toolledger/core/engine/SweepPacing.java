package dev.toolledger.core.engine;

import dev.toolledger.api.SqlDialect;
import java.time.Duration;
import java.util.Objects;

/**
 * How a sweep pass spaces its batches so that request writers keep their speed while a backlog of
 * expired records is deleted, and how it still keeps up with expiry.
 *
 * <p>After each batch the pass pauses, and the pause is the shorter of two:
 *
 * <ul>
 *   <li><b>the write share</b>: long enough that the sweeper holds the database's write time at
 *       most {@code writeShare} of the wall time ({@code batch × (1 − share) / share}), judged by
 *       how long the batch it just ran took; and
 *   <li><b>the pace of creation</b>: short enough that the pass deletes records at least as fast as
 *       this node gave records a retention since the pass began ({@code rows / rate − batch}). This
 *       is what keeps the sweeper up with expiry: in steady state records expire as fast as they
 *       were created one retention earlier, so a sweeper that deletes at least as fast as its node
 *       creates never lets the backlog grow, however busy the node, even when the share alone would
 *       be too small.
 * </ul>
 *
 * <p>The pause is at least {@link #MIN_PAUSE} (writers queued behind the batch get their turn) and
 * at most {@code maxPause} (so a pass deletes at least one batch per {@code maxPause} plus batch,
 * however slow the batches). Only full batches are followed by a pause; a short batch ends the
 * pass.
 *
 * <p>What it does not promise: a writer that arrives during a batch still waits for it (on SQLite,
 * up to the batch's length: a few to a few tens of milliseconds with 500 rows).
 *
 * @param writeShare the largest share of wall time a backlog sweep holds the write lock while it
 *     keeps up with creation, in (0, 1]; 1 means no pause beyond {@link #MIN_PAUSE}
 * @param maxPause the longest pause after a batch, positive
 */
public record SweepPacing(double writeShare, Duration maxPause) {
  /**
   * Default write share on SQLite: a tenth. SQLite has one writer at a time, so every millisecond
   * the sweeper holds the lock is a millisecond no request writes; with a fifth (the earlier
   * setting) writers beside a backlog sweep kept 0.72 of their speed on a fast disk, below the 0.8
   * the ledger aims at.
   */
  public static final double SQLITE_WRITE_SHARE = 0.1;

  /**
   * Default write share on PostgreSQL: a fifth. Sweep batches lock only their own rows there
   * ({@code SKIP LOCKED}), and writers beside a backlog sweep kept their speed (1.06) with it.
   */
  public static final double POSTGRESQL_WRITE_SHARE = 0.2;

  /** Default longest pause after a batch: 1 second. */
  public static final Duration DEFAULT_MAX_PAUSE = Duration.ofSeconds(1);

  /** The shortest pause after a full batch: 1 ms, so that queued writers take their turn. */
  public static final Duration MIN_PAUSE = Duration.ofMillis(1);

  public SweepPacing {
    if (!(writeShare > 0 && writeShare <= 1)) {
      throw new IllegalArgumentException(
          "sweep writeShare must be above 0 and at most 1, was " + writeShare);
    }
    Objects.requireNonNull(maxPause, "sweep maxPause must not be null");
    if (maxPause.compareTo(MIN_PAUSE) < 0) {
      throw new IllegalArgumentException("sweep maxPause must be at least 1 ms, was " + maxPause);
    }
  }

  /**
   * The default pacing for a store of this kind: {@link #SQLITE_WRITE_SHARE} or {@link
   * #POSTGRESQL_WRITE_SHARE}.
   */
  public static SweepPacing forDialect(SqlDialect dialect) {
    return new SweepPacing(
        dialect == SqlDialect.SQLITE ? SQLITE_WRITE_SHARE : POSTGRESQL_WRITE_SHARE,
        DEFAULT_MAX_PAUSE);
  }

  /**
   * The pause after a full batch.
   *
   * @param batchNanos how long the batch took, from asking for the write lock to its commit
   * @param rows the rows the batch deleted
   * @param createdInPass records this node gave a retention since the pass began
   * @param passNanos time since the pass began, this batch included
   * @return the pause in nanoseconds
   */
  long pauseNanos(long batchNanos, int rows, long createdInPass, long passNanos) {
    double pause = batchNanos * (1 - writeShare) / writeShare;
    if (createdInPass > 0 && passNanos > 0) {
      // The cycle (batch + pause) at which this pass deletes as fast as the node creates.
      double nanosPerCreated = (double) passNanos / createdInPass;
      pause = Math.min(pause, rows * nanosPerCreated - batchNanos);
    }
    long min = MIN_PAUSE.toNanos();
    long max = maxPause.toNanos();
    return (long) Math.max((double) min, Math.min((double) max, pause));
  }
}
