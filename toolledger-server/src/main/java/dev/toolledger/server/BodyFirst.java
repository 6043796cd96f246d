package dev.toolledger.server;

import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Reads a request's body without a thread before any servlet or filter sees the request, within a
 * deadline: a client that sends its body slowly or not at all holds a socket and at most {@code
 * keepBytes} of memory, never one of the server's threads, and is answered {@code 408}
 * request-timeout (with {@code Connection: close}) when its deadline passes.
 *
 * <p>Without it, a servlet's blocking read (and the drain of a refused request's unread body) held
 * a thread for as long as the client cared to trickle bytes: a few hundred slow clients, with or
 * without a token, took every thread and {@code /health} went unanswered.
 *
 * <p>What it does not do: it does not bound headers (Jetty parses those without a thread, within
 * the connector's idle timeout), and it does not limit connections per client (the ledger's clients
 * are often on the same host or behind one proxy, so such a limit would lock the well-behaved out
 * with the slow). A body whose declared length is over {@code bound} is not read here: the request
 * goes on with {@code Connection: close}, so that its refusal closes the connection instead of
 * draining it. Of a body within the bound only the first {@code keepBytes} are kept (the rest is
 * read and discarded, so that a 413 reaches its client); a servlet then sees a body that ends there
 * and refuses it as too large.
 */
final class BodyFirst extends Handler.Wrapper {
  private final int keepBytes;
  private final long bound;
  private final Duration timeout;

  /**
   * @param keepBytes the bytes of a body kept for the servlets: the request limit plus one
   * @param bound the largest declared body read (and discarded past {@code keepBytes}) here
   * @param timeout the time a body gets to arrive in full, from the end of its headers
   */
  BodyFirst(Handler next, int keepBytes, long bound, Duration timeout) {
    super(next);
    this.keepBytes = keepBytes;
    this.bound = bound;
    this.timeout = timeout;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    long declared = request.getLength();
    boolean chunked = request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    if (declared == 0 || (declared < 0 && !chunked)) {
      return super.handle(request, response, callback);
    }
    if (declared > bound) {
      response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
      return super.handle(request, response, callback);
    }
    new Reading(request, response, callback).start();
    return true;
  }

  /** One body being read; exactly one of {@link #proceed} and {@link #expire} acts. */
  private final class Reading implements Runnable {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final AtomicBoolean decided = new AtomicBoolean();
    private long seen;
    private Scheduler.Task deadline;

    Reading(Request request, Response response, Callback callback) {
      this.request = request;
      this.response = response;
      this.callback = callback;
    }

    void start() {
      deadline =
          request
              .getComponents()
              .getScheduler()
              .schedule(this::expire, timeout.toMillis(), TimeUnit.MILLISECONDS);
      run();
    }

    @Override
    public void run() {
      while (!decided.get()) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          request.demand(this);
          return;
        }
        if (Content.Chunk.isFailure(chunk)) {
          if (decided.compareAndSet(false, true)) {
            deadline.cancel();
            callback.failed(chunk.getFailure());
          }
          return;
        }
        ByteBuffer buffer = chunk.getByteBuffer();
        int n = buffer.remaining();
        seen += n;
        int keep = Math.min(n, Math.max(0, keepBytes - kept.size()));
        if (keep > 0) {
          byte[] bytes = new byte[keep];
          buffer.get(bytes);
          kept.write(bytes, 0, keep);
        }
        boolean last = chunk.isLast();
        chunk.release();
        if (seen > bound) {
          // A chunked body past the bound: what is left is not read, so the answer closes.
          response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
          proceed();
          return;
        }
        if (last) {
          proceed();
          return;
        }
      }
    }

    private void proceed() {
      if (!decided.compareAndSet(false, true)) {
        return;
      }
      deadline.cancel();
      Request buffered = new Buffered(request, kept.toByteArray());
      try {
        if (!BodyFirst.super.handle(buffered, response, callback)) {
          Response.writeError(buffered, response, callback, 404);
        }
      } catch (Throwable x) {
        callback.failed(x);
      }
    }

    private void expire() {
      if (!decided.compareAndSet(false, true)) {
        return;
      }
      Problem problem =
          Problem.of(
              ProblemType.REQUEST_TIMEOUT,
              "the request's body did not arrive within "
                  + timeout.toSeconds()
                  + " s; nothing was read or recorded, send it again");
      byte[] body = Json.write(problem.toJson()).getBytes(StandardCharsets.UTF_8);
      response.setStatus(problem.status());
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
      response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
      response.write(true, ByteBuffer.wrap(body), callback);
    }
  }

  /** The request with its body already read: one last chunk of the kept bytes, then the end. */
  private static final class Buffered extends Request.Wrapper {
    private Content.Chunk body;

    Buffered(Request request, byte[] kept) {
      super(request);
      this.body = Content.Chunk.from(ByteBuffer.wrap(kept), true);
    }

    @Override
    public synchronized Content.Chunk read() {
      Content.Chunk chunk = body;
      body = Content.Chunk.EOF;
      return chunk;
    }

    @Override
    public void demand(Runnable demandCallback) {
      getContext().execute(demandCallback);
    }

    @Override
    public void fail(Throwable failure) {
      // Everything was read already; there is nothing left to fail.
    }
  }
}
