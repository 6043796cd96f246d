package dev.toolledger.server.mcp;

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

  private final boolean enabled;
  private final Set<String> allowUnkeyed;
  private final Duration drainTimeout;
  private final int engineThreads;

  private McpOptions(Builder b) {
    this.enabled = b.enabled;
    this.allowUnkeyed = Set.copyOf(b.allowUnkeyed);
    this.drainTimeout = b.drainTimeout;
    this.engineThreads = b.engineThreads;
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

  /** Builder with the documented defaults. */
  public static final class Builder {
    private boolean enabled = DEFAULT_ENABLED;
    private final Set<String> allowUnkeyed = new LinkedHashSet<>();
    private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
    private int engineThreads = DEFAULT_ENGINE_THREADS;

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

    public McpOptions build() {
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
