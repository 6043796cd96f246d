package dev.toolledger.testkit.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy between PostgreSQL clients and a PostgreSQL server that breaks the link the way a
 * network does: it resets a connection at a chosen point of the protocol, stalls (forwards nothing,
 * in either direction, on every connection, until healed), and refuses new connections.
 *
 * <p>It reads just enough of the wire protocol to find those points: the startup packet (an SSL or
 * GSS encryption request is answered "no", so the traffic stays readable), then the type byte and
 * length of each message. The client's messages are forwarded one round trip at a time (up to a
 * {@code Sync}, a simple {@code Query}, a {@code Flush} or a {@code Terminate}); the SQL of a round
 * trip is what its {@code Query} and {@code Parse} messages carry, and what named statements bound
 * by its {@code Bind} messages were parsed with. The server's {@code ReadyForQuery} says whether a
 * transaction is open.
 *
 * <p>A reset closes both sockets with an RST. A stall holds whatever arrives until {@link #heal()}:
 * a client that gives up meanwhile (socket timeout) closes its side, and the server learns of it
 * only when the proxy heals, as over a real partitioned link; until then the server keeps the
 * client's transaction, and its locks, open (unless its own timeouts end the session).
 *
 * <p>Not handled: SSL traffic (clients must accept a plaintext connection; PgJDBC's default {@code
 * sslmode=prefer} does), and the replication protocol.
 */
public final class PgFaultProxy implements AutoCloseable {
  private static final Pattern URL_HOST = Pattern.compile("^jdbc:postgresql://[^/?]*");

  private final ServerSocket listener;
  private final InetSocketAddress upstream;
  private final Set<PgLink> links = ConcurrentHashMap.newKeySet();
  private final AtomicReference<Armed> armed = new AtomicReference<>();
  private final Object gate = new Object();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicLong stalls = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private volatile boolean stalledAll;
  private volatile long stallGeneration;
  private volatile boolean refusing;
  private volatile boolean closed;

  /** A fault waiting for the first connection that reaches its point. */
  record Armed(PgFaultPoint point, String sqlContains, boolean stall) {}

  private PgFaultProxy(ServerSocket listener, InetSocketAddress upstream) {
    this.listener = listener;
    this.upstream = upstream;
  }

  /** Starts a proxy on an ephemeral loopback port in front of {@code upstream}. */
  public static PgFaultProxy start(InetSocketAddress upstream) {
    Objects.requireNonNull(upstream, "upstream");
    try {
      ServerSocket listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
      PgFaultProxy proxy = new PgFaultProxy(listener, upstream);
      Thread acceptor = new Thread(proxy::acceptLoop, "pg-fault-proxy-accept");
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the proxy's port", e);
    }
  }

  /**
   * Starts a proxy in front of the server a PgJDBC URL names (its first host, port 5432 if none).
   */
  public static PgFaultProxy inFrontOf(String jdbcUrl) {
    Matcher m = URL_HOST.matcher(jdbcUrl);
    if (!m.find()) {
      throw new IllegalArgumentException("not a jdbc:postgresql://host[:port]/... URL");
    }
    String hostPort = m.group().substring("jdbc:postgresql://".length()).split(",")[0];
    int colon = hostPort.lastIndexOf(':');
    String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
    int port = colon < 0 ? 5432 : Integer.parseInt(hostPort.substring(colon + 1));
    return start(new InetSocketAddress(host.isEmpty() ? "localhost" : host, port));
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** A URL of {@code database} as {@code user} through this proxy. */
  public String jdbcUrl(String database, String user) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database + "?user=" + user;
  }

  /** {@code jdbcUrl} with its host and port replaced by this proxy's; the rest kept. */
  public String route(String jdbcUrl) {
    Matcher m = URL_HOST.matcher(jdbcUrl);
    if (!m.find()) {
      throw new IllegalArgumentException("not a jdbc:postgresql://host[:port]/... URL");
    }
    return m.replaceFirst("jdbc:postgresql://127.0.0.1:" + port());
  }

  /**
   * Resets the first connection that reaches {@code point} from now on; one fault armed at a time
   * (arming another replaces it).
   */
  public PgFaultProxy resetNext(PgFaultPoint point) {
    return resetNext(point, "");
  }

  /**
   * As {@link #resetNext(PgFaultPoint)}, for a round trip some SQL of which contains {@code
   * sqlContains} (case-insensitive).
   */
  public PgFaultProxy resetNext(PgFaultPoint point, String sqlContains) {
    armed.set(new Armed(Objects.requireNonNull(point, "point"), sqlContains, false));
    return this;
  }

  /**
   * Stalls the first connection that reaches {@code point} (whose SQL contains {@code
   * sqlContains}), alone, until {@link #heal()}: at {@link PgFaultPoint#AFTER_COMMIT_SENT} the
   * commit reaches the server and its answer is held; at the other points the statement is held.
   */
  public PgFaultProxy stallNext(PgFaultPoint point, String sqlContains) {
    armed.set(new Armed(Objects.requireNonNull(point, "point"), sqlContains, true));
    return this;
  }

  /** Whether the fault armed last has not met its connection yet. */
  public boolean armed() {
    return armed.get() != null;
  }

  /** Stops forwarding on every connection, open or new, both directions, until {@link #heal()}. */
  public PgFaultProxy stall() {
    synchronized (gate) {
      if (!stalledAll) {
        stalledAll = true;
        stallGeneration++;
        stalls.incrementAndGet();
      }
    }
    return this;
  }

  /** {@link #stall()} for {@code duration}, then forwarding resumes by itself. */
  public PgFaultProxy stall(Duration duration) {
    stall();
    long generation = stallGeneration;
    Thread timer =
        new Thread(
            () -> {
              try {
                Thread.sleep(duration.toMillis());
              } catch (InterruptedException e) {
                return;
              }
              synchronized (gate) {
                if (stallGeneration == generation) {
                  stalledAll = false;
                  gate.notifyAll();
                }
              }
            },
            "pg-fault-proxy-stall-timer");
    timer.setDaemon(true);
    timer.start();
    return this;
  }

  /** Resets every new connection at once while {@code refuse} holds. */
  public PgFaultProxy refuseNew(boolean refuse) {
    refusing = refuse;
    return this;
  }

  /** Resets every open connection now. */
  public PgFaultProxy resetAll() {
    for (PgLink link : links) {
      if (link.reset()) {
        resets.incrementAndGet();
      }
    }
    return this;
  }

  /**
   * Ends every stall (held traffic is forwarded, or dropped where a side closed meanwhile), stops
   * refusing, and disarms a fault that has not met its connection.
   */
  public PgFaultProxy heal() {
    armed.set(null);
    refusing = false;
    synchronized (gate) {
      stalledAll = false;
      stallGeneration++;
      for (PgLink link : links) {
        link.stalled = false;
      }
      gate.notifyAll();
    }
    return this;
  }

  /** Connections accepted (refused ones included). */
  public long connections() {
    return accepted.get();
  }

  /** Connections open through the proxy now. */
  public int openConnections() {
    return links.size();
  }

  /** Connections reset by a fault (armed, {@link #resetAll()}); refusals are counted apart. */
  public long resets() {
    return resets.get();
  }

  /** Stalls begun: each {@link #stall()} of all connections and each stalled connection. */
  public long stalls() {
    return stalls.get();
  }

  /** New connections refused. */
  public long refused() {
    return refused.get();
  }

  @Override
  public void close() {
    closed = true;
    heal();
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    links.forEach(PgLink::close);
  }

  // ------------------------------------------------------------------ package-private, for links

  InetSocketAddress upstream() {
    return upstream;
  }

  /** Takes the armed fault if this round trip meets it. */
  Armed take(boolean inTransaction, PgRoundTrip trip) {
    Armed a = armed.get();
    if (a == null || !trip.hasStatement() || !trip.contains(a.sqlContains())) {
      return null;
    }
    boolean meets =
        switch (a.point()) {
          case BEFORE_STATEMENT -> true;
          case MID_TRANSACTION -> inTransaction;
          case AFTER_COMMIT_SENT -> trip.commits();
        };
    return meets && armed.compareAndSet(a, null) ? a : null;
  }

  void countReset() {
    resets.incrementAndGet();
  }

  void stallLink(PgLink link) {
    synchronized (gate) {
      link.stalled = true;
      stalls.incrementAndGet();
    }
  }

  /** Waits while the proxy or this link is stalled; false when the link closed meanwhile. */
  boolean awaitOpen(PgLink link) {
    synchronized (gate) {
      while ((stalledAll || link.stalled) && !link.isClosed() && !closed) {
        try {
          gate.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !link.isClosed();
  }

  void forget(PgLink link) {
    links.remove(link);
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      accepted.incrementAndGet();
      if (refusing) {
        refused.incrementAndGet();
        PgLink.resetQuietly(client);
        continue;
      }
      PgLink link = new PgLink(this, client);
      links.add(link);
      link.start();
    }
  }
}
