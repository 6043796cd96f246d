package dev.toolledger.server;

import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.protocol.NotApi;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.http.ApiServlet;
import dev.toolledger.server.http.BoundedBody;
import dev.toolledger.server.http.HealthCheck;
import dev.toolledger.server.http.HostCheck;
import dev.toolledger.server.http.OriginCheck;
import dev.toolledger.server.http.ReadEndpoint;
import dev.toolledger.server.http.UnreadBodyDrain;
import dev.toolledger.server.mcp.McpConventions;
import dev.toolledger.server.mcp.McpOptions;
import dev.toolledger.server.mcp.McpService;
import dev.toolledger.server.observe.RequestIds;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ToolLedger HTTP server: the API of {@link ApiServlet} on an embedded Jetty and, unless turned
 * off, the MCP server at {@value McpConventions#PATH} on the same port, behind the same bearer
 * tokens.
 *
 * <p>{@link #close()} first drains: requests in flight finish (up to the configured grace), so an
 * operation that was claimed records its outcome before the process exits, while new requests are
 * answered {@code 503 node-stopping} with {@code Retry-After} on the still open port. Then it stops
 * accepting connections; MCP tool calls already handed to the engine are waited for up to the MCP
 * drain timeout.
 */
@NotApi
public final class ToolLedgerServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolLedgerServer.class);

  private final Server jetty;
  private final ServerConnector connector;
  private final HttpMount mounted;
  private final DrainGate gate;
  private final Duration grace;

  private ToolLedgerServer(
      Server jetty, ServerConnector connector, HttpMount mounted, DrainGate gate, Duration grace) {
    this.jetty = jetty;
    this.connector = connector;
    this.mounted = mounted;
    this.gate = gate;
    this.grace = grace;
  }

  public static Builder builder(LedgerEngine engine, Tokens tokens) {
    return new Builder(engine, tokens);
  }

  /** The port the server listens on (useful when configured with port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** The base URI, for example {@code http://127.0.0.1:8080}. */
  public URI uri() {
    String host = connector.getHost() == null ? "127.0.0.1" : connector.getHost();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + port());
  }

  /** The HTTP server's threads, for metrics. */
  public ThreadPool threadPool() {
    return jetty.getThreadPool();
  }

  /** Whether the MCP endpoint is served. */
  public boolean servesMcp() {
    return mounted.servesMcp();
  }

  @Override
  public void close() {
    long started = System.nanoTime();
    try {
      if (!gate.drain(grace)) {
        LOG.warn(
            "{} request(s) still running after the shutdown grace of {} s; stopping anyway",
            gate.inFlight(),
            grace.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // One grace for the whole stop: Jetty's own graceful stop gets only what the drain left of it,
    // so a request that outlives the grace delays the stop by the grace once, not twice.
    long left = grace.toMillis() - Duration.ofNanos(System.nanoTime() - started).toMillis();
    jetty.setStopTimeout(Math.max(1, left));
    try {
      jetty.stop();
    } catch (Exception e) {
      LOG.warn("the HTTP server did not stop cleanly", e);
    }
    mounted.close();
  }

  /** Assembles a server; {@link #start()} binds the port. */
  public static final class Builder {
    private final LedgerEngine engine;
    private final Tokens tokens;
    private ServerConfig config = ServerConfig.builder().build();
    private final List<ReadEndpoint> reads = new ArrayList<>();
    private HealthCheck health = HealthCheck.ALWAYS_UP;
    private McpOptions mcp = McpOptions.defaults();
    private final List<Consumer<ServletContextHandler>> mounts = new ArrayList<>();
    private UnaryOperator<Handler> front = UnaryOperator.identity();

    private Builder(LedgerEngine engine, Tokens tokens) {
      this.engine = Objects.requireNonNull(engine, "engine");
      this.tokens = Objects.requireNonNull(tokens, "tokens");
    }

    public Builder config(ServerConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    public Builder readEndpoint(ReadEndpoint endpoint) {
      this.reads.add(Objects.requireNonNull(endpoint, "endpoint"));
      return this;
    }

    public Builder health(HealthCheck health) {
      this.health = Objects.requireNonNull(health, "health");
      return this;
    }

    /**
     * The MCP endpoint's settings; {@link McpOptions#disabled()} turns it off. Default: served at
     * {@value McpConventions#PATH}, every write tool requiring an operation key.
     */
    public Builder mcp(McpOptions mcp) {
      this.mcp = Objects.requireNonNull(mcp, "mcp");
      return this;
    }

    /**
     * Adds servlets or filters beside the API (metrics, the operations console). Exact and longer
     * path mappings take precedence over the API's {@code /*}.
     */
    public Builder mount(Consumer<ServletContextHandler> mount) {
      this.mounts.add(Objects.requireNonNull(mount, "mount"));
      return this;
    }

    /**
     * Puts a handler of the caller's in front of the node's servlet context, on the same connector
     * and threads: the benchmark harness's floors (what Jetty itself costs per request) answer
     * their own paths there and hand every other request to {@code node}. Default: none.
     */
    public Builder front(UnaryOperator<Handler> front) {
      this.front = Objects.requireNonNull(front, "front");
      return this;
    }

    /**
     * The API and MCP as servlets and filters for another servlet container, without a server of
     * ToolLedger's own; {@link #mount} and the bind address and port do not apply.
     */
    public HttpMount mountable() {
      McpService mcpService = mcp.enabled() ? McpService.create(engine, mcp) : null;
      List<HttpMount.FilterEntry> filters = new ArrayList<>();
      // Outermost: once any later filter or servlet has answered, the unread rest of the body is
      // read, so that a refusal on the headers leaves the kept-alive connection usable.
      filters.add(
          new HttpMount.FilterEntry(
              "unread-bodies", new UnreadBodyDrain(config.maxRequestBytes()), "/*"));
      // Next: every later log line of the request carries its correlation id.
      filters.add(new HttpMount.FilterEntry("request-ids", new RequestIds(), "/*"));
      // Next, before authentication or any servlet: a request that names a host this node does not
      // answer to (DNS rebinding: the page's own GET carries no Origin), then a browser page of a
      // foreign origin (CSRF), are refused before anything of the request is looked at.
      filters.add(new HttpMount.FilterEntry("hosts", new HostCheck(config.allowedHosts()), "/*"));
      filters.add(
          new HttpMount.FilterEntry("origins", new OriginCheck(config.allowedOrigins()), "/*"));
      List<HttpMount.ServletEntry> servlets = new ArrayList<>();
      servlets.add(
          new HttpMount.ServletEntry(
              "api",
              new ApiServlet(engine, tokens, reads, health, config.maxRequestBytes()),
              "/*"));
      if (mcpService != null) {
        McpService.Endpoint endpoint =
            mcpService.endpoint(tokens, engine.listener(), config.maxRequestBytes());
        filters.add(new HttpMount.FilterEntry("mcp-gate", endpoint.gate(), McpConventions.PATH));
        // An exact mapping: it takes precedence over the HTTP API's "/*".
        servlets.add(new HttpMount.ServletEntry("mcp", endpoint.servlet(), McpConventions.PATH));
      }
      return new HttpMount(filters, servlets, Optional.ofNullable(mcpService));
    }

    public ToolLedgerServer start() {
      HttpMount mountable = mountable();
      QueuedThreadPool threads = new QueuedThreadPool(200, 8);
      threads.setName("toolledger-http");
      Server jetty = new Server(threads);

      HttpConfiguration http = new HttpConfiguration();
      http.setSendServerVersion(false);
      http.setSendXPoweredBy(false);
      http.setIdleTimeout(config.idleTimeout().toMillis());
      // Operation keys may hold any visible ASCII character, percent-encoded in GET
      // /v1/operations/{key}: '/' (%2F), '%' (%25), '.' and '..' as a whole segment (%2E) and '\'
      // (%5C). The API decodes its key segment itself and never maps a path to a file.
      http.setUriCompliance(
          UriCompliance.DEFAULT.with(
              "toolledger",
              UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
              UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING,
              UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT,
              UriCompliance.Violation.SUSPICIOUS_PATH_CHARACTERS));
      ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
      connector.setHost(config.bind());
      connector.setPort(config.port());
      connector.setIdleTimeout(config.idleTimeout().toMillis());
      // Many connections opened at once (a burst of clients, or slow ones) queue in the kernel
      // instead of being refused at Java's default backlog of 50.
      connector.setAcceptQueueSize(1024);
      jetty.addConnector(connector);

      ServletContextHandler context = new ServletContextHandler();
      context.setContextPath("/");
      context.setErrorHandler(new ProblemErrorHandler());
      context.getServletHandler().setDecodeAmbiguousURIs(true);
      for (HttpMount.FilterEntry filter : mountable.filters()) {
        FilterHolder holder = new FilterHolder(filter.filter());
        holder.setName(filter.name());
        holder.setAsyncSupported(true);
        context.addFilter(holder, filter.path(), EnumSet.of(DispatcherType.REQUEST));
      }
      for (HttpMount.ServletEntry servlet : mountable.servlets()) {
        ServletHolder holder = new ServletHolder(servlet.name(), servlet.servlet());
        holder.setAsyncSupported(true);
        context.addServlet(holder, servlet.path());
      }
      mounts.forEach(mount -> mount.accept(context));

      // Bodies are read before any servlet runs, without a thread and within the body timeout, so
      // that slow or stalled clients cannot take the threads /health and other callers need.
      long drainBound = BoundedBody.drainBound(config.maxRequestBytes());
      DrainGate gate =
          new DrainGate(
              new BodyFirst(
                  front.apply(context),
                  config.maxRequestBytes() + 1,
                  drainBound,
                  config.bodyTimeout()));
      jetty.setHandler(new GracefulHandler(gate));
      jetty.setErrorHandler(new ProblemErrorHandler());
      jetty.setStopTimeout(config.shutdownGrace().toMillis());
      jetty.setStopAtShutdown(false);
      try {
        jetty.start();
      } catch (Exception e) {
        try {
          jetty.stop();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
        mountable.close();
        throw new IllegalStateException(
            "cannot start the HTTP server on "
                + config.bind()
                + ":"
                + config.port()
                + ": "
                + e.getMessage(),
            e);
      }
      return new ToolLedgerServer(jetty, connector, mountable, gate, config.shutdownGrace());
    }
  }
}
