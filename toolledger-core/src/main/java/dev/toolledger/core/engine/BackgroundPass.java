package dev.toolledger.core.engine;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread that runs a pass, pauses {@code interval}, runs it again. Closing interrupts
 * the pass in progress and waits up to 5 seconds for it to end. The engine's background workers
 * ({@link RecoveryWorker}, {@link ExpirySweeper}) are built on it.
 */
final class BackgroundPass implements AutoCloseable {
  private final ScheduledExecutorService scheduler;

  private BackgroundPass(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  /** Starts running {@code pass} after {@code interval}, then {@code interval} after each run. */
  static BackgroundPass start(String threadName, Duration interval, Runnable pass) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, threadName);
              thread.setDaemon(true);
              return thread;
            });
    scheduler.scheduleWithFixedDelay(
        pass, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
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
