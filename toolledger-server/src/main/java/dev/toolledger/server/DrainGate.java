package dev.toolledger.server;

import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Lets a stopping node finish what it started and turn away what it has not: after {@link #drain}
 * every new request is answered {@code 503 node-stopping} with {@code Retry-After} and {@code
 * Connection: close}, while the requests already admitted run to their answers, which records their
 * outcomes.
 *
 * <p>Why not only Jetty's graceful stop: it closes the listening socket first, so a caller arriving
 * during the drain finds the port refusing connections, not an answer that says when to come back,
 * and a load balancer's health check sees the same. Here the port stays open until the admitted
 * requests are done; the node then stops as before.
 */
final class DrainGate extends Handler.Wrapper {
  /** What a turned-away caller is told to wait: another node, or this one restarted, answers. */
  static final long RETRY_AFTER_SECONDS = 1;

  private final AtomicLong admitted = new AtomicLong();
  private final Object idle = new Object();
  private volatile boolean draining;

  DrainGate(Handler next) {
    super(next);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    // Counted before the check, so that a drain that sees no admitted request has turned away
    // every request that did not count itself in time.
    admitted.incrementAndGet();
    if (draining) {
      release();
      return refuse(response, callback);
    }
    // Once per request, whichever of its completion and a failure to handle it comes first.
    AtomicBoolean released = new AtomicBoolean();
    Runnable releaseOnce =
        () -> {
          if (released.compareAndSet(false, true)) {
            release();
          }
        };
    boolean handled = false;
    try {
      handled = super.handle(request, response, Callback.from(callback, releaseOnce));
      return handled;
    } finally {
      if (!handled) {
        releaseOnce.run();
      }
    }
  }

  /**
   * Turns new requests away from now on and waits up to {@code grace} for the admitted ones to be
   * answered.
   *
   * @return whether every admitted request was answered within the grace
   */
  boolean drain(Duration grace) throws InterruptedException {
    draining = true;
    long deadline = System.nanoTime() + grace.toNanos();
    synchronized (idle) {
      while (admitted.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
    }
    return true;
  }

  /** Requests admitted and not yet answered. */
  long inFlight() {
    return admitted.get();
  }

  private void release() {
    if (admitted.decrementAndGet() == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  private static boolean refuse(Response response, Callback callback) {
    Problem problem =
        Problem.of(
            ProblemType.NODE_STOPPING,
            "this node is stopping and takes no new requests; nothing was read or recorded. Send"
                + " the same request again, with the same key, after Retry-After seconds (to"
                + " another node, or to this one once it is back)");
    byte[] body = Json.write(problem.toJson()).getBytes(StandardCharsets.UTF_8);
    response.setStatus(problem.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(RETRY_AFTER_SECONDS));
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }
}
