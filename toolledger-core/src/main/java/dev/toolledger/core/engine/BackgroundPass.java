package dev.toolledger.core.engine;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * One daemon thread that runs a pass, pauses {@code interval}, runs it again. A pass that throws is
 * logged and tried again at the next interval. Closing interrupts the pass in progress and waits up
 * to 5 seconds for it to end. The engine's background workers ({@link RecoveryWorker}, {@link
 * ExpirySweeper}) are built on it.
 */
final class BackgroundPass implements AutoCloseable {
  private final ScheduledExecutorService scheduler;

  private BackgroundPass(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  /**
   * Starts running {@code pass} after {@code interval}, then {@code interval} after each run.
   *
   * @param what the pass's name in log lines ("sweep", "recovery")
   * @param log the worker's own logger, so that its lines keep its name
   */
  // Nothing reads the schedule's future: the pass logs its own failures, close() ends it.
  @SuppressWarnings("FutureReturnValueIgnored")
  static BackgroundPass start(
      String threadName, Duration interval, String what, Logger log, Runnable pass) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, threadName);
              thread.setDaemon(true);
              return thread;
            });
    scheduler.scheduleWithFixedDelay(
        () -> {
          // A pass that throws must not end the schedule: the executor would stop for good.
          try {
            pass.run();
          } catch (RuntimeException e) {
            log.warn("{} pass failed; trying again next time: {}", what, e.toString());
          }
        },
        interval.toMillis(),
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return new BackgroundPass(scheduler);
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
