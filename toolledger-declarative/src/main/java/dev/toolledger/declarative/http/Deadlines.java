package dev.toolledger.declarative.http;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hc.core5.concurrent.Cancellable;

/**
 * Cancels the exchanges that outlive their whole-answer timeout.
 *
 * <p>One daemon thread, started by the first exchange, looks over the exchanges in flight every
 * {@link #TICK} and cancels those past their deadline. Starting and ending an exchange is an
 * insertion into and a removal from a concurrent set: no timer and no thread woken per call, which
 * a timer per call ({@code ScheduledThreadPoolExecutor.schedule}, one signal to its thread each
 * time) cost on every exchange. A deadline is therefore enforced up to one tick late.
 */
final class Deadlines {
  /** How often the exchanges in flight are looked at: how late a deadline may be enforced. */
  static final Duration TICK = Duration.ofMillis(50);

  private final Set<Watch> inFlight = ConcurrentHashMap.newKeySet();
  private Thread thread;

  /** An exchange being watched; closing it stops the watch. */
  final class Watch implements AutoCloseable {
    private final Cancellable exchange;
    private final long deadline;
    private volatile boolean fired;

    private Watch(Cancellable exchange, long deadline) {
      this.exchange = exchange;
      this.deadline = deadline;
    }

    /** Whether the deadline passed and the exchange was cancelled for it. */
    boolean fired() {
      return fired;
    }

    private void checkAt(long now) {
      if (!fired && now - deadline >= 0) {
        fired = true;
        exchange.cancel();
      }
    }

    @Override
    public void close() {
      inFlight.remove(this);
    }
  }

  /**
   * Watches {@code exchange} until the returned watch is closed; cancels it after {@code timeout}.
   */
  Watch watch(Cancellable exchange, Duration timeout) {
    startOnce();
    Watch watch = new Watch(exchange, System.nanoTime() + timeout.toNanos());
    inFlight.add(watch);
    return watch;
  }

  private synchronized void startOnce() {
    if (thread != null) {
      return;
    }
    thread = new Thread(this::run, "toolledger-http-tool-deadlines");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (true) {
      try {
        Thread.sleep(TICK.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      for (Watch watch : inFlight) {
        watch.checkAt(now);
      }
    }
  }
}
