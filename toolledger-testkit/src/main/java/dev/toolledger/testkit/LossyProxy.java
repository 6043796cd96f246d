package dev.toolledger.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of an HTTP/1.1 server that can lose responses the way a network does: the
 * request reaches the server, the server does the work and answers, and the answer never reaches
 * the caller, whose connection is closed instead.
 *
 * <p>It reads one request, forwards it, reads the whole response and then, according to its {@link
 * DropPolicy}, forwards the response or drops it and closes both connections. So a dropped response
 * is always one the server finished sending: exactly "the response was lost after the commit".
 * Keep-alive connections are supported; pipelining and protocol upgrades are not.
 */
public final class LossyProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress upstream;
  private final DropPolicy policy;
  private final RequestGate gate;
  private final ExecutorService workers = Executors.newCachedThreadPool(LossyProxy::daemon);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong forwarded = new AtomicLong();
  private volatile boolean closed;

  private LossyProxy(
      ServerSocket listener, InetSocketAddress upstream, DropPolicy policy, RequestGate gate) {
    this.listener = listener;
    this.upstream = upstream;
    this.policy = policy;
    this.gate = gate;
  }

  /** Starts a proxy on an ephemeral loopback port. */
  public static LossyProxy start(InetSocketAddress upstream, DropPolicy policy, RequestGate gate) {
    try {
      ServerSocket listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
      LossyProxy proxy = new LossyProxy(listener, upstream, policy, gate);
      proxy.workers.execute(proxy::acceptLoop);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the proxy's port", e);
    }
  }

  public static LossyProxy start(URI upstream, DropPolicy policy) {
    return start(upstream, policy, RequestGate.open());
  }

  /**
   * A proxy that drops responses by {@code policy} and forwards requests when {@code gate} says.
   */
  public static LossyProxy start(URI upstream, DropPolicy policy, RequestGate gate) {
    return start(new InetSocketAddress(upstream.getHost(), upstream.getPort()), policy, gate);
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** The proxy's base URI ({@code http://127.0.0.1:PORT}). */
  public URI uri() {
    return URI.create("http://" + listener.getInetAddress().getHostAddress() + ":" + port());
  }

  /**
   * Responses the server sent that the caller never got; counted before the caller's connection is
   * closed, so a caller that saw its connection end sees the count.
   */
  public long dropped() {
    return dropped.get();
  }

  /**
   * Responses passed on to the caller; counted before they are written, so a caller that has its
   * answer sees the count.
   */
  public long forwarded() {
    return forwarded.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        open.add(client);
        workers.execute(() -> relay(client));
      } catch (IOException e) {
        if (!closed) {
          System.err.println("proxy: accept failed: " + e);
        }
      }
    }
  }

  private void relay(Socket client) {
    try (client;
        Socket server = new Socket()) {
      open.add(server);
      server.connect(upstream, 5_000);
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      InputStream fromClient = client.getInputStream();
      OutputStream toClient = client.getOutputStream();
      InputStream fromServer = server.getInputStream();
      OutputStream toServer = server.getOutputStream();
      while (!closed) {
        HttpMessage request = HttpMessage.readRequest(fromClient);
        if (request == null) {
          return;
        }
        String[] requestLine = request.startLine().split(" ", 3);
        gate.admit(requestLine[0], requestLine.length > 1 ? requestLine[1] : "");
        toServer.write(request.raw());
        toServer.flush();
        HttpMessage response = HttpMessage.readResponse(fromServer);
        if (response == null) {
          return;
        }
        Exchange exchange =
            new Exchange(
                sequence.incrementAndGet(),
                requestLine[0],
                requestLine.length > 1 ? requestLine[1] : "",
                response.status(),
                new String(request.body(), StandardCharsets.UTF_8));
        if (policy.drop(exchange)) {
          dropped.incrementAndGet();
          return;
        }
        // Counted before the write: the caller may read the answer and ask the count before this
        // thread runs again, so counting after the write would race with the test that asks.
        forwarded.incrementAndGet();
        toClient.write(response.raw());
        toClient.flush();
        if (response.endsAtClose()) {
          return;
        }
      }
    } catch (IOException e) {
      // A peer closed its end; the connection is over either way.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      open.remove(client);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing
    }
    for (Socket socket : open) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing
      }
    }
    workers.shutdownNow();
  }

  private static Thread daemon(Runnable runnable) {
    Thread thread = new Thread(runnable, "lossy-proxy");
    thread.setDaemon(true);
    return thread;
  }
}
