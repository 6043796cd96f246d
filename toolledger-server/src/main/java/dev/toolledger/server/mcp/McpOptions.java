package dev.toolledger.server.mcp;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable settings of the MCP face of a ToolLedger node. Build with {@link #builder()}; {@link
 * Builder#build()} rejects bad values and names the option. Whether a tool named in {@link
 * Builder#allowUnkeyed(String)} exists is checked when the server starts, against its tools.
 */
public final class McpOptions {
  /** Default: the MCP endpoint is served. */
  public static final boolean DEFAULT_ENABLED = true;

  /**
   * Default longest time that stopping waits for tool calls already handed to the engine: 30
   * seconds.
   */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /** Default number of threads that run engine calls for MCP requests: 16. */
  public static final int DEFAULT_ENGINE_THREADS = 16;

  /**
   * Default time after which an MCP session that received no request is forgotten: 30 minutes. A
   * client then gets {@code 404} and opens a new session, as the MCP specification asks.
   */
  public static final Duration DEFAULT_SESSION_IDLE_TIMEOUT = Duration.ofMinutes(30);

  /** Default number of open MCP sessions one token may hold at once: 32. */
  public static final int DEFAULT_MAX_SESSIONS_PER_TOKEN = 32;

  private final boolean enabled;
  private final Set<String> allowUnkeyed;
  private final Duration drainTimeout;
  private final int engineThreads;
  private final Duration sessionIdleTimeout;
  private final int maxSessionsPerToken;
  private final Clock sessionClock;

  private McpOptions(Builder b) {
    this.enabled = b.enabled;
    this.allowUnkeyed = Set.copyOf(b.allowUnkeyed);
    this.drainTimeout = b.drainTimeout;
    this.engineThreads = b.engineThreads;
    this.sessionIdleTimeout = b.sessionIdleTimeout;
    this.maxSessionsPerToken = b.maxSessionsPerToken;
    this.sessionClock = b.sessionClock;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults: served, every write tool requires a key. */
  public static McpOptions defaults() {
    return builder().build();
  }

  /** The MCP face turned off: no {@code /mcp} endpoint. */
  public static McpOptions disabled() {
    return builder().enabled(false).build();
  }

  public boolean enabled() {
    return enabled;
  }

  /** Tools that accept a call without an operation key (the server then mints one). */
  public Set<String> allowUnkeyed() {
    return allowUnkeyed;
  }

  public boolean allowsUnkeyed(String tool) {
    return allowUnkeyed.contains(tool);
  }

  public Duration drainTimeout() {
    return drainTimeout;
  }

  public int engineThreads() {
    return engineThreads;
  }

  public Duration sessionIdleTimeout() {
    return sessionIdleTimeout;
  }

  public int maxSessionsPerToken() {
    return maxSessionsPerToken;
  }

  public Clock sessionClock() {
    return sessionClock;
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private boolean enabled = DEFAULT_ENABLED;
    private final Set<String> allowUnkeyed = new LinkedHashSet<>();
    private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
    private int engineThreads = DEFAULT_ENGINE_THREADS;
    private Duration sessionIdleTimeout = DEFAULT_SESSION_IDLE_TIMEOUT;
    private int maxSessionsPerToken = DEFAULT_MAX_SESSIONS_PER_TOKEN;
    private Clock sessionClock = Clock.systemUTC();

    private Builder() {}

    /** Whether to serve MCP at all. Default {@value McpOptions#DEFAULT_ENABLED}. */
    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    /**
     * Lets calls of this tool come without an operation key: the server mints a fresh random key
     * for each such call, so that call executes every time and is <em>not</em> safe to retry. The
     * tool is then announced with {@code idempotentHint: false}. Default: no tool.
     */
    public Builder allowUnkeyed(String tool) {
      this.allowUnkeyed.add(Objects.requireNonNull(tool, "allowUnkeyed tool"));
      return this;
    }

    /**
     * How long stopping waits for tool calls that were already handed to the engine, so that each
     * records its outcome before the process exits. Calls still running after that are left to
     * finish on their own threads; they are never interrupted. Default 30 seconds.
     */
    public Builder drainTimeout(Duration drainTimeout) {
      this.drainTimeout = drainTimeout;
      return this;
    }

    /**
     * How many engine calls run at once for MCP requests; more wait in line. Default {@value
     * McpOptions#DEFAULT_ENGINE_THREADS}.
     */
    public Builder engineThreads(int engineThreads) {
      this.engineThreads = engineThreads;
      return this;
    }

    /**
     * How long an MCP session may go without a request before it is forgotten; its next request is
     * answered {@code 404} and the client opens a new session. Default 30 minutes.
     */
    public Builder sessionIdleTimeout(Duration sessionIdleTimeout) {
      this.sessionIdleTimeout = sessionIdleTimeout;
      return this;
    }

    /**
     * How many open MCP sessions one token may hold at once; one more {@code initialize} is
     * answered {@code 429} {@code mcp-session-limit} until a session is closed ({@code DELETE}) or
     * idles out. Default {@value McpOptions#DEFAULT_MAX_SESSIONS_PER_TOKEN}.
     */
    public Builder maxSessionsPerToken(int maxSessionsPerToken) {
      this.maxSessionsPerToken = maxSessionsPerToken;
      return this;
    }

    /**
     * The clock that sessions idle by; tests move it. Its own, not the engine's, so that moving the
     * engine's clock (retention, leases) does not idle sessions out. Default: the system clock.
     */
    public Builder sessionClock(Clock sessionClock) {
      this.sessionClock = Objects.requireNonNull(sessionClock, "sessionClock");
      return this;
    }

    public McpOptions build() {
      if (sessionIdleTimeout == null
          || sessionIdleTimeout.isNegative()
          || sessionIdleTimeout.isZero()) {
        throw new IllegalArgumentException("sessionIdleTimeout must be positive");
      }
      if (maxSessionsPerToken < 1) {
        throw new IllegalArgumentException("maxSessionsPerToken must be at least 1");
      }
      if (drainTimeout == null || drainTimeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must be zero or positive");
      }
      if (engineThreads < 1) {
        throw new IllegalArgumentException("engineThreads must be at least 1");
      }
      for (String tool : allowUnkeyed) {
        if (tool.isBlank()) {
          throw new IllegalArgumentException("allowUnkeyed needs a tool name, not a blank");
        }
        if (tool.equals(McpConventions.GET_OPERATION)) {
          throw new IllegalArgumentException(
              "allowUnkeyed: " + tool + " is a read tool and takes no operation key");
        }
      }
      return new McpOptions(this);
    }
  }
}
