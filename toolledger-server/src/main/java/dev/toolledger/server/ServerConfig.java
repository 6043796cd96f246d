package dev.toolledger.server;

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

  private final String bind;
  private final int port;
  private final int maxRequestBytes;
  private final Duration shutdownGrace;
  private final Set<String> allowedOrigins;

  private ServerConfig(Builder b) {
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

  /** Builder with the documented defaults. */
  public static final class Builder {
    private String bind = DEFAULT_BIND;
    private int port = DEFAULT_PORT;
    private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
    private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
    private final Set<String> allowedOrigins = new LinkedHashSet<>();

    private Builder() {}

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
      return new ServerConfig(this);
    }
  }
}
