package dev.toolledger.core.engine;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link LedgerEngine#sweep} in the background at a fixed interval. Every node may run one:
 * sweepers on one PostgreSQL database take disjoint batches, and on SQLite they take turns.
 */
public final class ExpirySweeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExpirySweeper.class);

  /** Default pause between passes: 1 minute. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

  /** Default number of operations (or tombstones) deleted per transaction: 500. */
  public static final int DEFAULT_BATCH_SIZE = 500;

  private final BackgroundPass pass;

  private ExpirySweeper(BackgroundPass pass) {
    this.pass = pass;
  }

  public static ExpirySweeper start(LedgerEngine engine, Duration interval, int batchSize) {
    Objects.requireNonNull(engine, "engine");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the sweep interval must be positive");
    }
    if (batchSize < 1) {
      throw new IllegalArgumentException("the sweep batch size must be at least 1");
    }
    return new ExpirySweeper(
        BackgroundPass.start(
            "toolledger-sweeper",
            interval,
            "sweep",
            LOG,
            () -> {
              SweepReport report = engine.sweep(batchSize);
              if (report.swept() > 0 || report.pruned() > 0) {
                LOG.info("sweep pass: {}", report);
              }
            }));
  }

  @Override
  public void close() {
    pass.close();
  }
}
