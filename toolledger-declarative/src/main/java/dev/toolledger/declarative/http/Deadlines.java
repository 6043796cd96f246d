package dev.toolledger.declarative.http;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.hc.core5.concurrent.Cancellable;

/**
 * Cancels the exchanges that outlive their whole-answer timeout.
 *
 * <p>One daemon thread, started by the first exchange, looks over the exchanges in flight every
 * {@link #TICK} and cancels those past their deadline. Starting and ending an exchange is an
 * insertion into and a removal from a concurrent set: no timer and no thread woken per call, which
 * a timer per call ({@code ScheduledThreadPoolExecutor.schedule}, one signal to its thread each
 * time) cost on every exchange. A deadline is therefore enforced up to one tick late.
 *
 * <p>With nothing in flight the thread parks until the next exchange starts, so an idle node has no
 * thread waking twenty times a second. Only the exchange that ends an idle spell wakes it; while
 * exchanges keep coming, starting one costs a read of a flag, never a lock or a signal.
 */
final class Deadlines {
  /** How often the exchanges in flight are looked at: how late a deadline may be enforced. */
  static final Duration TICK = Duration.ofMillis(50);

  private final Set<Watch> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean idle = new AtomicBoolean();
  private volatile Thread thread;

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
    Thread watcher = thread;
    if (watcher == null) {
      watcher = startOnce();
    }
    Watch watch = new Watch(exchange, System.nanoTime() + timeout.toNanos());
    inFlight.add(watch);
    // After the insertion: a watcher that saw the set empty and parked is woken; one that has not
    // parked yet sees the insertion when it looks again.
    if (idle.get() && idle.compareAndSet(true, false)) {
      LockSupport.unpark(watcher);
    }
    return watch;
  }

  /** The watcher thread, for tests: whether it is parked idle or ticking. */
  Thread thread() {
    return thread;
  }

  private synchronized Thread startOnce() {
    if (thread == null) {
      Thread started = new Thread(this::run, "toolledger-http-tool-deadlines");
      started.setDaemon(true);
      started.start();
      thread = started;
    }
    return thread;
  }

  private void run() {
    while (!Thread.currentThread().isInterrupted()) {
      if (inFlight.isEmpty()) {
        idle.set(true);
        // Looked at again after raising the flag: an exchange added in between either is seen
        // here or sees the flag and unparks this thread (a permit that makes the park return).
        if (inFlight.isEmpty()) {
          LockSupport.park(this);
          continue;
        }
        idle.set(false);
      }
      LockSupport.parkNanos(this, TICK.toNanos());
      long now = System.nanoTime();
      for (Watch watch : inFlight) {
        watch.checkAt(now);
      }
    }
  }
}
