package dev.toolledger.core.engine;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs {@link LedgerEngine#recoverExpiredClaims} in the background at a fixed interval. */
public final class RecoveryWorker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecoveryWorker.class);

  /** Default pause between passes: 2 seconds. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(2);

  private final ScheduledExecutorService scheduler;

  private RecoveryWorker(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  public static RecoveryWorker start(LedgerEngine engine, Duration interval, int batchSize) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "toolledger-recovery");
              thread.setDaemon(true);
              return thread;
            });
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            RecoveryReport report = engine.recoverExpiredClaims(batchSize);
            if (report.examined() > 0) {
              LOG.info("recovery pass: {}", report);
            }
          } catch (RuntimeException e) {
            LOG.warn("recovery pass failed; trying again: {}", e.toString());
          }
        },
        interval.toMillis(),
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return new RecoveryWorker(scheduler);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
