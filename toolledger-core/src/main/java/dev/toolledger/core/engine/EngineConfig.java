package dev.toolledger.core.engine;

import dev.toolledger.api.ToolDescriptor;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable engine settings. Build with {@link #builder()}; {@link Builder#build()} rejects values
 * that make no sense and names the option.
 */
public final class EngineConfig {
  /** Default longest wait for a concurrent execution of the same key: 5 seconds. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(5);

  /** Default number of attempts of one write transaction on transient errors: 5. */
  public static final int DEFAULT_TRANSACTION_ATTEMPTS = 5;

  /**
   * Default time after which a failed write transaction is not attempted again: 5 seconds. A
   * database that takes seconds to fail (a stalled link's socket timeout, an exhausted pool) is
   * then answered busy after one such failure instead of once per attempt.
   */
  public static final Duration DEFAULT_TRANSACTION_BUDGET = Duration.ofSeconds(5);

  /** Default first backoff between transaction attempts: 10 ms (full jitter, doubling). */
  public static final Duration DEFAULT_RETRY_BASE = Duration.ofMillis(10);

  /** Default cap of the backoff between transaction attempts: 200 ms. */
  public static final Duration DEFAULT_RETRY_CAP = Duration.ofMillis(200);

  /** Default {@code Retry-After} for "in progress" and "busy" answers: 1 second. */
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

  /** Default number of lease takeovers after which an unsettled operation becomes UNKNOWN: 5. */
  public static final int DEFAULT_MAX_TAKEOVERS = 5;

  /**
   * Default time a swept operation's tombstone guards its key after the record's retention ended: 7
   * days. A late retry within it is refused as expired; after it the key is new again.
   */
  public static final Duration DEFAULT_TOMBSTONE_WINDOW = Duration.ofDays(7);

  /** Default largest tool response body the ledger records: 64 KiB. */
  public static final int DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

  /** Default rate of new operations per tenant on one node: 1000 per second. */
  public static final RateLimit DEFAULT_NEW_OPERATION_LIMIT = RateLimit.perSecond(1000);

  private final Clock clock;
  private final String nodeId;
  private final int maxTakeovers;
  private final Duration maxWait;
  private final int transactionAttempts;
  private final Duration transactionBudget;
  private final Duration retryBase;
  private final Duration retryCap;
  private final Duration retryAfter;
  private final Map<String, Duration> retention;
  private final Duration tombstoneWindow;
  private final int maxResponseBytes;
  private final Optional<RateLimit> newOperationLimit;
  private final Optional<SweepPacing> sweepPacing;

  private EngineConfig(Builder b) {
    this.clock = b.clock;
    this.sweepPacing = b.sweepPacing;
    this.nodeId = b.nodeId;
    this.maxTakeovers = b.maxTakeovers;
    this.maxWait = b.maxWait;
    this.transactionAttempts = b.transactionAttempts;
    this.transactionBudget = b.transactionBudget;
    this.retryBase = b.retryBase;
    this.retryCap = b.retryCap;
    this.retryAfter = b.retryAfter;
    this.retention = Map.copyOf(b.retention);
    this.tombstoneWindow = b.tombstoneWindow;
    this.maxResponseBytes = b.maxResponseBytes;
    this.newOperationLimit = b.newOperationLimit;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static EngineConfig defaults() {
    return builder().build();
  }

  public Clock clock() {
    return clock;
  }

  public Duration maxWait() {
    return maxWait;
  }

  /** This node's name, recorded as the owner of its claims and in operation histories. */
  public String nodeId() {
    return nodeId;
  }

  public int maxTakeovers() {
    return maxTakeovers;
  }

  public int transactionAttempts() {
    return transactionAttempts;
  }

  /** No attempt of a failed write transaction begins once this long has passed since the first. */
  public Duration transactionBudget() {
    return transactionBudget;
  }

  public Duration retryBase() {
    return retryBase;
  }

  public Duration retryCap() {
    return retryCap;
  }

  public Duration retryAfter() {
    return retryAfter;
  }

  /** The per-tool retention overrides, by tool name. */
  public Map<String, Duration> retentionOverrides() {
    return retention;
  }

  /** How long a tool's records are kept: its override if configured, else its own declaration. */
  public Duration retentionOf(ToolDescriptor tool) {
    return retention.getOrDefault(tool.name(), tool.retention());
  }

  public Duration tombstoneWindow() {
    return tombstoneWindow;
  }

  public int maxResponseBytes() {
    return maxResponseBytes;
  }

  /**
   * The rate of new operations each tenant may start: on this node, or across nodes when the engine
   * is given {@link LedgerEngine.Builder#sharedRateBuckets shared buckets}; empty when unlimited.
   */
  public Optional<RateLimit> newOperationLimit() {
    return newOperationLimit;
  }

  /**
   * How sweep passes space their batches; empty for the store's default ({@link
   * SweepPacing#forDialect}).
   */
  public Optional<SweepPacing> sweepPacing() {
    return sweepPacing;
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private String nodeId = defaultNodeId();
    private int maxTakeovers = DEFAULT_MAX_TAKEOVERS;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private int transactionAttempts = DEFAULT_TRANSACTION_ATTEMPTS;
    private Duration transactionBudget = DEFAULT_TRANSACTION_BUDGET;
    private Duration retryBase = DEFAULT_RETRY_BASE;
    private Duration retryCap = DEFAULT_RETRY_CAP;
    private Duration retryAfter = DEFAULT_RETRY_AFTER;
    private final Map<String, Duration> retention = new LinkedHashMap<>();
    private Duration tombstoneWindow = DEFAULT_TOMBSTONE_WINDOW;
    private int maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
    private Optional<RateLimit> newOperationLimit = Optional.of(DEFAULT_NEW_OPERATION_LIMIT);
    private Optional<SweepPacing> sweepPacing = Optional.empty();

    private Builder() {}

    /** Source of record timestamps. Default: the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** This node's name. Default: the host name and the process id. */
    public Builder nodeId(String nodeId) {
      this.nodeId = nodeId;
      return this;
    }

    /**
     * How many times recovery may take over a leased claim whose outcome it could not settle (a
     * lookup that keeps failing or says "pending") before it records UNKNOWN. Default 5.
     */
    public Builder maxTakeovers(int maxTakeovers) {
      this.maxTakeovers = maxTakeovers;
      return this;
    }

    /**
     * Longest time a duplicate request waits for a concurrent execution of its key before it hears
     * "in progress". A request may ask for less ({@code Prefer: wait=N}), never for more. Default 5
     * seconds.
     */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = maxWait;
      return this;
    }

    /** Attempts of one write transaction on transient database errors. Default 5. */
    public Builder transactionAttempts(int transactionAttempts) {
      this.transactionAttempts = transactionAttempts;
      return this;
    }

    /**
     * How long after its first attempt began a failed write transaction may still be attempted
     * again (within {@link #transactionAttempts}). Default 5 seconds; positive.
     */
    public Builder transactionBudget(Duration transactionBudget) {
      this.transactionBudget = transactionBudget;
      return this;
    }

    /** Backoff between transaction attempts: full jitter up to min(cap, base * 2^n). */
    public Builder transactionBackoff(Duration base, Duration cap) {
      this.retryBase = base;
      this.retryCap = cap;
      return this;
    }

    /** The {@code Retry-After} given with "in progress" and "busy" answers. Default 1 second. */
    public Builder retryAfter(Duration retryAfter) {
      this.retryAfter = retryAfter;
      return this;
    }

    /**
     * Keeps the records of {@code tool} for {@code retention} instead of what the tool declares
     * (default: the tool's own, normally 7 days). Choose at least the longest window in which a
     * caller may still retry or recover an action of that tool. The engine refuses an override for
     * a tool it does not have.
     */
    public Builder retention(String tool, Duration retention) {
      this.retention.put(Objects.requireNonNull(tool, "tool"), retention);
      return this;
    }

    /**
     * How long a swept operation's tombstone guards its key after the record's retention ended: a
     * late retry within it is refused as expired, never executed again; after it the key is new.
     * Zero leaves no tombstones. Default 7 days.
     */
    public Builder tombstoneWindow(Duration tombstoneWindow) {
      this.tombstoneWindow = tombstoneWindow;
      return this;
    }

    /**
     * The largest tool response body (UTF-8 bytes of its JSON) that the ledger records. A
     * transactional tool whose response is larger is rolled back; an external tool's (whose effect
     * already happened) leaves the operation UNKNOWN. Default 64 KiB.
     */
    public Builder maxResponseBytes(int maxResponseBytes) {
      this.maxResponseBytes = maxResponseBytes;
      return this;
    }

    /**
     * The rate of new operations (keys not yet recorded) each tenant may start on this node (or
     * across nodes, with {@link LedgerEngine.Builder#sharedRateBuckets}); replays and lookups do
     * not count. Default 1000 per second.
     */
    public Builder newOperationLimit(RateLimit limit) {
      this.newOperationLimit = Optional.of(Objects.requireNonNull(limit, "limit"));
      return this;
    }

    /**
     * How sweep passes space their batches. Default: by the store, {@link
     * SweepPacing#SQLITE_WRITE_SHARE} of the write time on SQLite, {@link
     * SweepPacing#POSTGRESQL_WRITE_SHARE} on PostgreSQL, pauses of at most {@link
     * SweepPacing#DEFAULT_MAX_PAUSE} ({@link SweepPacing#forDialect}).
     */
    public Builder sweepPacing(SweepPacing pacing) {
      this.sweepPacing = Optional.of(Objects.requireNonNull(pacing, "sweepPacing"));
      return this;
    }

    /** Lets every tenant start new operations as fast as the database takes them. */
    public Builder unlimitedNewOperations() {
      this.newOperationLimit = Optional.empty();
      return this;
    }

    public EngineConfig build() {
      Objects.requireNonNull(clock, "clock must not be null");
      if (nodeId == null || nodeId.isBlank() || nodeId.length() > 100) {
        throw new IllegalArgumentException("nodeId must be 1 to 100 characters");
      }
      if (maxTakeovers < 1) {
        throw new IllegalArgumentException("maxTakeovers must be at least 1");
      }
      requireNonNegative("maxWait", maxWait);
      if (transactionAttempts < 1) {
        throw new IllegalArgumentException("transactionAttempts must be at least 1");
      }
      if (transactionBudget == null
          || transactionBudget.isNegative()
          || transactionBudget.isZero()) {
        throw new IllegalArgumentException("transactionBudget must be positive");
      }
      requireNonNegative("transactionBackoff base", retryBase);
      requireNonNegative("transactionBackoff cap", retryCap);
      if (retryCap.compareTo(retryBase) < 0) {
        throw new IllegalArgumentException("transactionBackoff cap must not be below its base");
      }
      requireNonNegative("retryAfter", retryAfter);
      if (retryAfter.toSeconds() < 1) {
        throw new IllegalArgumentException(
            "retryAfter must be at least 1 second (HTTP says seconds)");
      }
      retention.forEach(
          (tool, value) -> {
            if (value == null || value.isNegative() || value.isZero()) {
              throw new IllegalArgumentException("retention of tool " + tool + " must be positive");
            }
          });
      requireNonNegative("tombstoneWindow", tombstoneWindow);
      if (maxResponseBytes < 1) {
        throw new IllegalArgumentException("maxResponseBytes must be at least 1");
      }
      return new EngineConfig(this);
    }

    private static String defaultNodeId() {
      String host;
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        host = "localhost";
      }
      return host + "-" + ProcessHandle.current().pid();
    }

    private static void requireNonNegative(String option, Duration value) {
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException(option + " must be zero or positive");
      }
    }
  }
}
