package dev.toolledger.server;

import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.http.ApiServlet;
import dev.toolledger.server.http.HealthCheck;
import dev.toolledger.server.http.ReadEndpoint;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ToolLedger HTTP server: the API of {@link ApiServlet} on an embedded Jetty.
 *
 * <p>{@link #close()} stops accepting connections and lets requests in flight finish (up to the
 * configured grace), so an operation that was claimed records its outcome before the process exits.
 */
public final class ToolLedgerServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolLedgerServer.class);

  private final Server jetty;
  private final ServerConnector connector;

  private ToolLedgerServer(Server jetty, ServerConnector connector) {
    this.jetty = jetty;
    this.connector = connector;
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

  @Override
  public void close() {
    try {
      jetty.stop();
    } catch (Exception e) {
      LOG.warn("the HTTP server did not stop cleanly", e);
    }
  }

  /** Assembles a server; {@link #start()} binds the port. */
  public static final class Builder {
    private final LedgerEngine engine;
    private final Tokens tokens;
    private ServerConfig config = ServerConfig.builder().build();
    private final List<ReadEndpoint> reads = new ArrayList<>();
    private HealthCheck health = HealthCheck.ALWAYS_UP;

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

    public ToolLedgerServer start() {
      QueuedThreadPool threads = new QueuedThreadPool(200, 8);
      threads.setName("toolledger-http");
      Server jetty = new Server(threads);

      HttpConfiguration http = new HttpConfiguration();
      http.setSendServerVersion(false);
      http.setSendXPoweredBy(false);
      // Operation keys may contain '/' or '%', percent-encoded in GET /v1/operations/{key}.
      http.setUriCompliance(
          UriCompliance.DEFAULT.with(
              "toolledger",
              UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
              UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING,
              UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT));
      ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
      connector.setHost(config.bind());
      connector.setPort(config.port());
      jetty.addConnector(connector);

      ServletContextHandler context = new ServletContextHandler();
      context.setContextPath("/");
      context.setErrorHandler(new ProblemErrorHandler());
      context.getServletHandler().setDecodeAmbiguousURIs(true);
      context.addServlet(
          new ServletHolder(
              "api", new ApiServlet(engine, tokens, reads, health, config.maxRequestBytes())),
          "/*");

      jetty.setHandler(new GracefulHandler(context));
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
        throw new IllegalStateException(
            "cannot start the HTTP server on "
                + config.bind()
                + ":"
                + config.port()
                + ": "
                + e.getMessage(),
            e);
      }
      return new ToolLedgerServer(jetty, connector);
    }
  }
}
