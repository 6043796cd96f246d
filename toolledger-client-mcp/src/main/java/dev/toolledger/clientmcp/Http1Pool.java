package dev.toolledger.clientmcp;

import io.modelcontextprotocol.spec.McpTransportException;
import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kept-alive connections of one {@link LeanStreamableHttpTransport}: the most recently used
 * idle connection is taken first, one idle longer than the idle timeout is closed instead of reused
 * (the server may have closed it), and at most {@code maxIdle} are kept. A connection is never
 * shared: an exchange borrows one and gives it back when it is done.
 */
final class Http1Pool {
  private final String host;
  private final int port;
  private final boolean tls;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final long idleTimeoutNanos;
  private final int maxIdle;

  private final ConcurrentLinkedDeque<Http1Connection> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  private volatile boolean closed;

  Http1Pool(
      String host,
      int port,
      boolean tls,
      int connectTimeoutMillis,
      int readTimeoutMillis,
      long idleTimeoutNanos,
      int maxIdle) {
    this.host = host;
    this.port = port;
    this.tls = tls;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.readTimeoutMillis = readTimeoutMillis;
    this.idleTimeoutNanos = idleTimeoutNanos;
    this.maxIdle = maxIdle;
  }

  /** An idle connection still within its idle timeout, or a new one. */
  Http1Connection borrow() {
    long now = System.nanoTime();
    for (Http1Connection connection = idle.pollLast();
        connection != null;
        connection = idle.pollLast()) {
      idleCount.decrementAndGet();
      if (now - connection.idleSince() < idleTimeoutNanos) {
        return connection;
      }
      connection.close();
    }
    try {
      return Http1Connection.open(host, port, tls, connectTimeoutMillis, readTimeoutMillis);
    } catch (IOException e) {
      throw new McpTransportException(
          "could not connect to the MCP endpoint (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  /**
   * Keeps {@code connection} if it can carry another exchange and there is room; else closes it.
   */
  void release(Http1Connection connection, boolean reusable) {
    if (reusable && !closed) {
      if (idleCount.incrementAndGet() <= maxIdle) {
        connection.markIdle(System.nanoTime());
        idle.addLast(connection);
        // close() may have emptied the pool between the check and the add.
        if (closed && idle.remove(connection)) {
          idleCount.decrementAndGet();
          connection.close();
        }
        return;
      }
      idleCount.decrementAndGet();
    }
    connection.close();
  }

  /** Closes every idle connection; a connection given back after this is closed, not kept. */
  void close() {
    closed = true;
    for (Http1Connection connection = idle.poll(); connection != null; connection = idle.poll()) {
      idleCount.decrementAndGet();
      connection.close();
    }
  }
}
