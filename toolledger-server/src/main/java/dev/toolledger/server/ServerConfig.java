package dev.toolledger.server;

import dev.toolledger.server.http.HostCheck;
import dev.toolledger.server.http.OriginCheck;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/** Immutable HTTP server settings; build with {@link #builder()}. */
public final class ServerConfig {
  /** Default bind address: loopback only. */
  public static final String DEFAULT_BIND = "127.0.0.1";

  /** Default port. */
  public static final int DEFAULT_PORT = 8080;

  /** Default largest request body: 64 KiB. */
  public static final int DEFAULT_MAX_REQUEST_BYTES = 64 * 1024;

  /** Default time in-flight requests get to finish on shutdown: 10 seconds. */
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);

  /** Default time a request's body gets to arrive in full, from the end of its headers: 10 s. */
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(10);

  /** Default time a connection may stay silent before the server closes it: 30 s. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

  private final String bind;
  private final int port;
  private final int maxRequestBytes;
  private final Duration shutdownGrace;
  private final Set<String> allowedOrigins;
  private final Duration bodyTimeout;
  private final Duration idleTimeout;
  private final Set<String> allowedHosts;

  private ServerConfig(Builder b) {
    this.bodyTimeout = b.bodyTimeout;
    this.idleTimeout = b.idleTimeout;
    this.allowedHosts = Set.copyOf(HostCheck.normalizeAll(b.allowedHosts));
    this.bind = b.bind;
    this.port = b.port;
    this.maxRequestBytes = b.maxRequestBytes;
    this.shutdownGrace = b.shutdownGrace;
    this.allowedOrigins = Set.copyOf(OriginCheck.normalizeAll(b.allowedOrigins));
  }

  public static Builder builder() {
    return new Builder();
  }

  public String bind() {
    return bind;
  }

  public int port() {
    return port;
  }

  public int maxRequestBytes() {
    return maxRequestBytes;
  }

  public Duration shutdownGrace() {
    return shutdownGrace;
  }

  /**
   * The web origins whose requests are accepted (normalized); empty means the server's own origins
   * on loopback. Requests without an {@code Origin} header are always accepted.
   */
  public Set<String> allowedOrigins() {
    return allowedOrigins;
  }

  /** The time a request's body gets to arrive in full; see {@link Builder#bodyTimeout}. */
  public Duration bodyTimeout() {
    return bodyTimeout;
  }

  /** The time a silent connection is kept; see {@link Builder#idleTimeout}. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /**
   * The host names (lower case, with or without a port) whose requests are accepted; empty means
   * the default of {@link Builder#allowedHost}.
   */
  public Set<String> allowedHosts() {
    return allowedHosts;
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private String bind = DEFAULT_BIND;
    private int port = DEFAULT_PORT;
    private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
    private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
    private final Set<String> allowedOrigins = new LinkedHashSet<>();
    private Duration bodyTimeout = DEFAULT_BODY_TIMEOUT;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private final Set<String> allowedHosts = new LinkedHashSet<>();

    private Builder() {}

    /**
     * The time a request's body gets to arrive in full, counted from the end of its headers. The
     * body is read without holding a thread; a client that is slower is answered {@code 408} {@code
     * request-timeout} and its connection closed, with nothing read or recorded. Default 10 s
     * ({@link ServerConfig#DEFAULT_BODY_TIMEOUT}).
     */
    public Builder bodyTimeout(Duration bodyTimeout) {
      this.bodyTimeout = bodyTimeout;
      return this;
    }

    /**
     * The time a connection may stay silent (no byte of a request, between requests, or a client
     * that reads no answer) before the server closes it. Default 30 s ({@link
     * ServerConfig#DEFAULT_IDLE_TIMEOUT}).
     */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Accepts requests whose {@code Host} is {@code host}: a name ({@code ledger.example.com}, any
     * port) or a name with a port ({@code ledger.example.com:8443}); {@code *} accepts every host.
     * Repeatable. A request with another {@code Host} is answered {@code 421} {@code
     * misdirected-host} before anything else runs, on every path: a page that reached the node
     * through DNS rebinding names its own host. Default (none given): a request that arrived on a
     * loopback address must name {@code localhost}, {@code 127.0.0.1} or {@code [::1]} (any port);
     * a request that arrived on another address (a non-loopback bind) is not checked, because the
     * names such a node is reached by are not known to it: give them here.
     */
    public Builder allowedHost(String host) {
      this.allowedHosts.add(Objects.requireNonNull(host, "allowedHost"));
      return this;
    }

    /** Address to listen on. Default {@value ServerConfig#DEFAULT_BIND}. */
    public Builder bind(String bind) {
      this.bind = bind;
      return this;
    }

    /** Port; 0 picks a free one. Default {@value ServerConfig#DEFAULT_PORT}. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Largest accepted request body in bytes. Default 65536. */
    public Builder maxRequestBytes(int maxRequestBytes) {
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    /** How long in-flight requests may take to finish when the server stops. Default 10 s. */
    public Builder shutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
      return this;
    }

    /**
     * Accepts requests that carry {@code Origin: origin} (a browser page of that origin), for
     * example {@code https://console.example.com}; {@code *} accepts every origin. Repeatable. A
     * request with an {@code Origin} that is not allowed is answered {@code 403} {@code
     * forbidden-origin} before anything else runs (on {@code /mcp}, the console and the API).
     * Requests without {@code Origin} (curl, SDK clients, agents) are not affected. Default: only
     * the server's own origins on loopback ({@code http://127.0.0.1:PORT}, {@code
     * http://localhost:PORT}, {@code http://[::1]:PORT}).
     */
    public Builder allowedOrigin(String origin) {
      this.allowedOrigins.add(Objects.requireNonNull(origin, "allowedOrigin"));
      return this;
    }

    public ServerConfig build() {
      Objects.requireNonNull(bind, "bind must not be null");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, not " + port);
      }
      if (maxRequestBytes < 1024) {
        throw new IllegalArgumentException("maxRequestBytes must be at least 1024");
      }
      if (shutdownGrace == null || shutdownGrace.isNegative()) {
        throw new IllegalArgumentException("shutdownGrace must be zero or positive");
      }
      OriginCheck.normalizeAll(allowedOrigins); // names a bad origin here, at build time
      HostCheck.normalizeAll(allowedHosts);
      if (bodyTimeout == null || bodyTimeout.toMillis() < 1) {
        throw new IllegalArgumentException("bodyTimeout must be positive");
      }
      if (idleTimeout == null || idleTimeout.toMillis() < 1) {
        throw new IllegalArgumentException("idleTimeout must be positive");
      }
      return new ServerConfig(this);
    }
  }
}
