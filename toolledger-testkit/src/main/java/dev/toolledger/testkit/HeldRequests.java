package dev.toolledger.testkit;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;

/** A gate that holds matching requests until {@link #release()}; the rest pass at once. */
public final class HeldRequests implements RequestGate {
  private final BiPredicate<String, String> matching;
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicInteger held = new AtomicInteger();

  private HeldRequests(BiPredicate<String, String> matching) {
    this.matching = matching;
  }

  /** Holds requests whose method and target match. */
  public static HeldRequests matching(BiPredicate<String, String> matching) {
    return new HeldRequests(matching);
  }

  /** Holds every POST. */
  public static HeldRequests posts() {
    return matching((method, target) -> method.equals("POST"));
  }

  @Override
  public void admit(String method, String target) throws InterruptedException {
    if (matching.test(method, target)) {
      synchronized (held) {
        held.incrementAndGet();
        held.notifyAll();
      }
      released.await();
    }
  }

  /** Waits until at least {@code count} requests are being held. */
  public boolean awaitHeld(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (held) {
      while (held.get() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        held.wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }

  /** Lets every held request, and every later one, through. */
  public void release() {
    released.countDown();
  }
}
