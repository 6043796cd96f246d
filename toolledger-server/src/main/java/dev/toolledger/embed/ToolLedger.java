package dev.toolledger.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.jdbc.DatabaseLocation;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.PostgresOptions;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.HttpMount;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.auth.OperatorAuthenticator;
import dev.toolledger.server.mcp.McpConventions;
import dev.toolledger.server.mcp.McpOptions;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * ToolLedger embedded in an application: the ledger on a SQLite file or a PostgreSQL database, the
 * application's tools, an in-process {@link #call}, and optionally the HTTP API and MCP on a port.
 *
 * <pre>{@code
 * try (ToolLedger ledger = ToolLedger.builder("orders-ledger.db")
 *         .plugin(new OrdersPlugin())
 *         .build()) {
 *   CallResult result = ledger.call(TenantId.of("acme"), "order-7", "create-order", params);
 * }
 * }</pre>
 *
 * <p>{@link #call} gives the same guarantees as the HTTP API: one effect per (tenant, key), the
 * recorded outcome replayed to every retry, a conflict for the same key with other parameters. The
 * tenant is whatever the application authenticated: ToolLedger trusts the caller of {@code call}.
 *
 * <p>An application that an MCP client starts as its server process serves the same tools on stdio
 * with {@link Builder#serveStdio} instead of {@link Builder#build()}.
 *
 * <p>Background work runs while the ledger is open: the outbox relay, the recovery of expired
 * claims of external tools, and the retention sweeper. {@link #close()} stops it and closes the
 * database.
 */
public final class ToolLedger implements AutoCloseable {
  // Over 600 lines on purpose: this is the one public door for embedding, and most of it is the
  // Builder's setters, one documented, validated setting each. Users write ToolLedger.Builder, so
  // the builder stays nested here rather than in a file of its own.
  private final JdbcLedgerStore store;
  private final ToolLedgerApp app;
  private final boolean http;
  private final boolean mounted;

  private ToolLedger(JdbcLedgerStore store, ToolLedgerApp app, boolean http, boolean mounted) {
    this.store = store;
    this.app = app;
    this.http = http;
    this.mounted = mounted;
  }

  /**
   * A ledger on {@code database}: a SQLite file path, or a {@code jdbc:postgresql://} URL (with
   * {@code user} and {@code password} parameters, or {@code TOOLLEDGER_DB_USER} and {@code
   * TOOLLEDGER_DB_PASSWORD} in the environment).
   */
  public static Builder builder(String database) {
    return new Builder(DatabaseLocation.resolve(database, System.getenv()), null);
  }

  /**
   * A ledger in the application's own database, on its connection pool (SQLite or PostgreSQL, told
   * apart by the driver): the ledger's tables are created beside the application's, so a tool can
   * write the application's tables in the transaction that records the operation. {@link #close()}
   * leaves the data source open. What the ledger sets on the connections it takes: on PostgreSQL
   * each write transaction sets its own isolation (READ COMMITTED) and {@code lock_timeout} (the
   * claim wait) with {@code SET LOCAL}; on SQLite each connection gets {@code busy_timeout}, and
   * the file is switched to WAL once. {@link Builder#synchronous} does not apply (the application's
   * connections keep their own).
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(null, Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Runs {@code tool} for {@code tenant} under {@code operationKey}, or replays what an earlier
   * call with this key recorded.
   *
   * @throws dev.toolledger.protocol.InvalidOperationKeyException for a key that is not 1 to 255
   *     visible ASCII characters
   * @throws dev.toolledger.protocol.ToolLedgerException when the tool threw: nothing was recorded,
   *     the same key may be retried
   */
  public CallResult call(TenantId tenant, String operationKey, String tool, JsonNode parameters) {
    Objects.requireNonNull(parameters, "parameters");
    ExecutionOutcome outcome =
        app.engine()
            .execute(Invocation.of(tenant, OperationKey.of(operationKey), tool, parameters));
    return result(outcome);
  }

  private static CallResult result(ExecutionOutcome outcome) {
    if (outcome instanceof ExecutionOutcome.Executed e) {
      return new CallResult.Done(e.response().status(), Json.parse(e.response().body()), false);
    } else if (outcome instanceof ExecutionOutcome.Replayed r) {
      return new CallResult.Done(r.response().status(), Json.parse(r.response().body()), true);
    } else if (outcome instanceof ExecutionOutcome.KeyReused k) {
      return new CallResult.Conflict(k.recordedTool());
    } else if (outcome instanceof ExecutionOutcome.InProgress p) {
      return new CallResult.InProgress(p.retryAfter());
    } else if (outcome instanceof ExecutionOutcome.OutcomeUnknown) {
      return new CallResult.Unknown();
    } else if (outcome instanceof ExecutionOutcome.NotExecuted) {
      return new CallResult.NotExecuted();
    } else if (outcome instanceof ExecutionOutcome.InvalidParameters i) {
      return new CallResult.Invalid(
          i.violations().stream().map(v -> v.field() + ": " + v.message()).toList());
    } else if (outcome instanceof ExecutionOutcome.UnknownTool t) {
      return new CallResult.UnknownTool(t.tool());
    } else if (outcome instanceof ExecutionOutcome.ToolUnavailable t) {
      return new CallResult.RetryLater(t.reason(), t.retryAfter());
    } else if (outcome instanceof ExecutionOutcome.RateLimited r) {
      return new CallResult.RetryLater("too many new operations", r.retryAfter());
    } else if (outcome instanceof ExecutionOutcome.Busy b) {
      return new CallResult.RetryLater("ledger busy", b.retryAfter());
    } else if (outcome instanceof ExecutionOutcome.Expired) {
      return new CallResult.Expired();
    } else if (outcome instanceof ExecutionOutcome.ResponseTooLarge t) {
      return new CallResult.TooLarge(t.bytes(), t.limit());
    }
    throw new IllegalStateException("unhandled outcome " + outcome.kind());
  }

  /**
   * The HTTP API and MCP as servlets and filters for the application's servlet container, when
   * {@link Builder#mountedHttp} was asked for.
   */
  public Optional<HttpMount> httpMount() {
    return mounted ? Optional.of(app.httpMount()) : Optional.empty();
  }

  /**
   * Whether the ledger can write right now, proven by a committed probe write (reused for a
   * second): empty when it can, else a short reason without secrets. What {@code GET /health}
   * answers.
   */
  public Optional<String> writeProblem() {
    return store.writeProblem();
  }

  /** Where the HTTP API listens (MCP at {@code /mcp}), when {@link Builder#http} was asked for. */
  public Optional<URI> httpUri() {
    return http ? Optional.of(app.uri()) : Optional.empty();
  }

  /**
   * Issues a bearer token for {@code tenant}, for an agent that calls the HTTP API or MCP. The
   * secret is shown only here; the ledger keeps its hash.
   */
  public String issueToken(TenantId tenant, String label) {
    return app.tokens().issue(tenant, label).token();
  }

  /**
   * Issues an operator token: it opens the operations console at {@code /console} and {@code
   * /metrics} on the ledger's own listener ({@link Builder#http}), acts for no tenant (the API and
   * MCP refuse it), and can be revoked on its own ({@code toolledger tokens revoke}). The secret is
   * shown only here; the ledger keeps its hash. For one fixed secret from the application's
   * configuration instead, see {@link Builder#operatorSecret}.
   */
  public String issueOperatorToken(String label) {
    return app.tokens().issueOperator(label).token();
  }

  @Override
  public void close() {
    try {
      app.close();
    } finally {
      store.close();
    }
  }

  /** Chooses the tools and what is served; {@link #build()} opens the database and starts. */
  public static final class Builder {
    private final DatabaseLocation location;
    private final DataSource dataSource;
    private Optional<ServerConfig> http = Optional.empty();
    private boolean mounted;
    private Synchronous synchronous = Synchronous.FULL;
    private Duration busyTimeout = SqliteOptions.DEFAULT_BUSY_TIMEOUT;
    private Duration claimWait = PostgresOptions.DEFAULT_CLAIM_WAIT;
    private String nodeId = EngineConfig.defaults().nodeId();
    private Optional<RateLimit> newOperationLimit =
        Optional.of(EngineConfig.DEFAULT_NEW_OPERATION_LIMIT);
    private Clock clock = Clock.systemUTC();
    private Consumer<EngineConfig.Builder> engineSteps = e -> {};
    private boolean mcpEnabled = McpOptions.DEFAULT_ENABLED;
    private final McpOptions.Builder mcp = McpOptions.builder();
    private Consumer<ToolLedgerApp.Builder> steps = b -> {};

    private Builder(DatabaseLocation location, DataSource dataSource) {
      this.location = location;
      this.dataSource = dataSource;
    }

    /** Serves a plugin: its tables are migrated at {@link #build()}, then its tools served. */
    public Builder plugin(ToolPlugin plugin) {
      return plugin(plugin, Map.of());
    }

    /** Serves a plugin with options (those it declares in {@code optionNames()}). */
    public Builder plugin(ToolPlugin plugin, Map<String, String> options) {
      steps = steps.andThen(b -> b.plugin(plugin, options));
      return this;
    }

    /** Serves a tool whose tables, if any, exist already. */
    public Builder tool(Tool tool) {
      steps = steps.andThen(b -> b.tool(tool));
      return this;
    }

    /**
     * Also serves the HTTP API, and MCP at {@code /mcp}, on {@code bind}:{@code port} ({@code 0}
     * picks a free port; see {@link ToolLedger#httpUri()}). Default: in-process calls only.
     */
    public Builder http(String bind, int port) {
      this.http = Optional.of(ServerConfig.builder().bind(bind).port(port).build());
      this.mounted = false;
      return this;
    }

    /**
     * Prepares the HTTP API and MCP for the application's own servlet container instead of a
     * listener of the ledger's ({@link ToolLedger#httpMount()}); {@code config} gives the request
     * bound and the allowed origins, its bind address and port do not apply. Default: in-process
     * calls only.
     */
    public Builder mountedHttp(ServerConfig config) {
      this.http = Optional.of(Objects.requireNonNull(config, "config"));
      this.mounted = true;
      return this;
    }

    /**
     * SQLite: how long a writer waits for the write lock. Default 5 seconds. Ignored on PostgreSQL.
     */
    public Builder busyTimeout(Duration busyTimeout) {
      this.busyTimeout = Objects.requireNonNull(busyTimeout, "busyTimeout");
      return this;
    }

    /**
     * PostgreSQL: how long a claim waits for a concurrent execution of the same key before
     * answering "in progress". Default 5 seconds. Ignored on SQLite.
     */
    public Builder claimWait(Duration claimWait) {
      this.claimWait = Objects.requireNonNull(claimWait, "claimWait");
      return this;
    }

    /**
     * How long an accepted bearer token is trusted without reading it again; a token revoked
     * elsewhere keeps working on this node for at most this long. Zero reads it on every request.
     * Default 5 seconds.
     */
    public Builder tokenCacheTtl(Duration tokenCacheTtl) {
      Objects.requireNonNull(tokenCacheTtl, "tokenCacheTtl");
      steps = steps.andThen(b -> b.tokenCacheTtl(tokenCacheTtl));
      return this;
    }

    /**
     * Pause between recovery passes over expired claims of external tools; zero turns recovery off
     * on this node. Default 2 seconds. {@link #build()} rejects a negative value.
     */
    public Builder recoveryInterval(Duration recoveryInterval) {
      Objects.requireNonNull(recoveryInterval, "recoveryInterval");
      steps = steps.andThen(b -> b.recoveryInterval(recoveryInterval));
      return this;
    }

    /**
     * Pause between passes of the sweeper that deletes expired records (leaving tombstones); zero
     * turns sweeping off on this node. Default 1 minute. {@link #build()} rejects a negative value.
     */
    public Builder sweepInterval(Duration sweepInterval) {
      Objects.requireNonNull(sweepInterval, "sweepInterval");
      steps = steps.andThen(b -> b.sweepInterval(sweepInterval));
      return this;
    }

    /** Whether this node delivers the outbox's messages. Default true. */
    public Builder relayEnabled(boolean relayEnabled) {
      steps = steps.andThen(b -> b.relayEnabled(relayEnabled));
      return this;
    }

    /**
     * At start, the node compares its retention settings with those recorded in the ledger and
     * refuses to start on a difference; the first node records them. With {@code true} it records
     * its own over the ledger's instead, and logs each change as a warning: an operator changing
     * the settings on purpose. Default false.
     */
    public Builder adoptLedgerSettings(boolean adoptLedgerSettings) {
      steps = steps.andThen(b -> b.adoptLedgerSettings(adoptLedgerSettings));
      return this;
    }

    /**
     * Age from which an {@code IN_PROGRESS} operation needs attention (metrics, console). Default 5
     * minutes. {@link #build()} rejects zero or a negative value.
     */
    public Builder staleAfter(Duration staleAfter) {
      Objects.requireNonNull(staleAfter, "staleAfter");
      steps = steps.andThen(b -> b.staleAfter(staleAfter));
      return this;
    }

    /**
     * The rate of new operations (keys not yet recorded) each tenant may start: at most {@code
     * permits} per {@code period} (a period of at most a day), in bursts of up to {@code permits}.
     * Replays and lookups do not count; {@code 0} lets every tenant start new operations as fast as
     * the database takes them. Default 1000 per second.
     *
     * @throws IllegalArgumentException for a negative {@code permits} or a period that is not
     *     positive and at most a day
     */
    public Builder newOperationLimit(long permits, Duration period) {
      Objects.requireNonNull(period, "period");
      if (permits < 0) {
        throw new IllegalArgumentException(
            "newOperationLimit: permits must be 0 (no limit) or more");
      }
      try {
        this.newOperationLimit =
            permits == 0 ? Optional.empty() : Optional.of(new RateLimit(permits, period));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("newOperationLimit: " + e.getMessage(), e);
      }
      return this;
    }

    /**
     * Applies the rate limit of new operations across every node on this ledger (buckets in the
     * database) instead of per node in memory. PostgreSQL only: {@link #build()} refuses it on
     * SQLite. Default false (per node).
     */
    public Builder sharedRateLimit(boolean sharedRateLimit) {
      steps = steps.andThen(b -> b.sharedRateLimit(sharedRateLimit));
      return this;
    }

    /**
     * Whether the HTTP API also serves MCP at {@code /mcp} (when it is served at all, {@link #http}
     * or {@link #mountedHttp}). Default true.
     */
    public Builder mcpEnabled(boolean mcpEnabled) {
      this.mcpEnabled = mcpEnabled;
      return this;
    }

    /**
     * Lets MCP calls of {@code tool} come without an operation key: the ledger mints a fresh random
     * key for each such call, so that call executes every time and is <em>not</em> safe to retry; a
     * call that brings a key keeps every guarantee. The tool is announced with {@code
     * idempotentHint: false}. Repeatable, one tool per call. Applies to MCP only: {@link
     * ToolLedger#call} and the HTTP API always need a key. Default: no tool.
     *
     * @throws IllegalArgumentException for a blank name or {@code get-operation} (a read tool that
     *     takes no key); {@link #build()} rejects a tool the ledger does not serve
     */
    public Builder allowUnkeyed(String tool) {
      Objects.requireNonNull(tool, "allowUnkeyed tool");
      if (tool.isBlank()) {
        throw new IllegalArgumentException("allowUnkeyed needs a tool name, not a blank");
      }
      if (tool.equals(McpConventions.GET_OPERATION)) {
        throw new IllegalArgumentException(
            "allowUnkeyed: " + tool + " is a read tool and takes no operation key");
      }
      mcp.allowUnkeyed(tool);
      return this;
    }

    /**
     * How long {@link ToolLedger#close()} (or {@link StdioSession#close()}) waits for MCP tool
     * calls already handed to the engine, so that each records its outcome; calls still running
     * after that finish on their own threads, never interrupted. Zero does not wait. Default 30
     * seconds.
     *
     * @throws IllegalArgumentException for a negative duration
     */
    public Builder mcpDrainTimeout(Duration drainTimeout) {
      Objects.requireNonNull(drainTimeout, "mcpDrainTimeout");
      if (drainTimeout.isNegative()) {
        throw new IllegalArgumentException("mcpDrainTimeout must be zero or positive");
      }
      mcp.drainTimeout(drainTimeout);
      return this;
    }

    /**
     * How long an MCP session over HTTP may go without a request before it is forgotten; its next
     * request is answered {@code 404} and the client opens a new session, as the MCP specification
     * asks. Sessions idle by the system clock, not by {@link #clock}. Default 30 minutes.
     *
     * @throws IllegalArgumentException for zero or a negative duration
     */
    public Builder mcpSessionIdleTimeout(Duration sessionIdleTimeout) {
      Objects.requireNonNull(sessionIdleTimeout, "mcpSessionIdleTimeout");
      if (sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero()) {
        throw new IllegalArgumentException("mcpSessionIdleTimeout must be positive");
      }
      mcp.sessionIdleTimeout(sessionIdleTimeout);
      return this;
    }

    /**
     * How many open MCP sessions one token may hold at once over HTTP; one more {@code initialize}
     * is answered {@code 429} {@code mcp-session-limit} until a session is closed or idles out.
     * Default 32.
     *
     * @throws IllegalArgumentException for less than 1
     */
    public Builder mcpMaxSessionsPerToken(int maxSessionsPerToken) {
      if (maxSessionsPerToken < 1) {
        throw new IllegalArgumentException("mcpMaxSessionsPerToken must be at least 1");
      }
      mcp.maxSessionsPerToken(maxSessionsPerToken);
      return this;
    }

    /**
     * How many MCP tool calls run at once; more wait in line. Default 16.
     *
     * @throws IllegalArgumentException for less than 1
     */
    public Builder mcpEngineThreads(int engineThreads) {
      if (engineThreads < 1) {
        throw new IllegalArgumentException("mcpEngineThreads must be at least 1");
      }
      mcp.engineThreads(engineThreads);
      return this;
    }

    /**
     * Lets whoever presents {@code secret} as a bearer token operate the ledger: the operations
     * console at {@code /console} and {@code /metrics} on the ledger's own listener ({@link
     * #http}); a mounted ledger ({@link #mountedHttp}) serves neither. Operator tokens issued by
     * {@link ToolLedger#issueOperatorToken} are accepted as well, with or without a secret. Only
     * the secret's SHA-256 is kept. Default: no secret (only issued operator tokens).
     *
     * @throws IllegalArgumentException for a secret shorter than 16 characters
     */
    public Builder operatorSecret(String secret) {
      Objects.requireNonNull(secret, "operatorSecret");
      OperatorAuthenticator operators;
      try {
        operators = OperatorAuthenticator.sharedSecret(secret);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("operatorSecret: " + e.getMessage(), e);
      }
      steps = steps.andThen(b -> b.operators(operators));
      return this;
    }

    /**
     * Who may read {@code GET /metrics} on the ledger's own listener ({@link #http}). Default
     * {@link MetricsAccess#LOOPBACK}: loopback clients without a token, everyone else with an
     * operator token or the {@link #operatorSecret}.
     */
    public Builder metricsAccess(MetricsAccess access) {
      Objects.requireNonNull(access, "metricsAccess");
      dev.toolledger.server.observe.MetricsAccess internal =
          switch (access) {
            case LOOPBACK -> dev.toolledger.server.observe.MetricsAccess.LOOPBACK;
            case OPERATOR -> dev.toolledger.server.observe.MetricsAccess.OPERATOR;
            case OPEN -> dev.toolledger.server.observe.MetricsAccess.OPEN;
            case OFF -> dev.toolledger.server.observe.MetricsAccess.OFF;
          };
      steps = steps.andThen(b -> b.metricsAccess(internal));
      return this;
    }

    /**
     * The clock the ledger reads: the times recorded on operations and their history, retention and
     * expiry, leases of external tools, token issue times, the rate limit of new operations, and
     * the ages the console shows. For tests that move time, and for an application that keeps one
     * clock. MCP sessions over HTTP idle by the system clock regardless. Default: the system clock
     * in UTC.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Serves a read view of the tenant's data at {@code GET /v1/{path}} (a plugin's read views are
     * served without this). Default: none besides the plugins'.
     */
    public Builder readView(ReadView view) {
      Objects.requireNonNull(view, "view");
      steps = steps.andThen(b -> b.readView(view));
      return this;
    }

    /**
     * Also registers the ledger's meters (requests, effects, latencies, database gauges) in the
     * application's Micrometer registry. Default: the ledger's own registry only.
     */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      Objects.requireNonNull(meterRegistry, "meterRegistry");
      steps = steps.andThen(b -> b.meterRegistry(meterRegistry));
      return this;
    }

    /**
     * SQLite durability. {@code FULL} (default) syncs every commit; {@code NORMAL} survives a
     * process crash but may lose the last commits on power loss. Ignored on PostgreSQL.
     */
    public Builder synchronous(Synchronous synchronous) {
      this.synchronous = Objects.requireNonNull(synchronous, "synchronous");
      return this;
    }

    /**
     * Keeps the records of {@code tool} for {@code retention} instead of what the tool declares
     * (the tool's own, normally 7 days). Choose at least the longest window in which a caller may
     * still retry or recover an action of that tool. {@link #build()} rejects a retention that is
     * not positive and a tool this ledger does not serve.
     */
    public Builder retention(String tool, Duration retention) {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(retention, "retention");
      engineSteps = engineSteps.andThen(e -> e.retention(tool, retention));
      return this;
    }

    /**
     * How long a swept operation's tombstone guards its key after the record's retention ended: a
     * late retry within it is refused as expired, never executed again; after it the key is new.
     * Zero leaves no tombstones. Default 7 days. {@link #build()} rejects a negative value.
     */
    public Builder tombstoneWindow(Duration tombstoneWindow) {
      Objects.requireNonNull(tombstoneWindow, "tombstoneWindow");
      engineSteps = engineSteps.andThen(e -> e.tombstoneWindow(tombstoneWindow));
      return this;
    }

    /**
     * Longest time a duplicate call waits for a concurrent execution of its key before it hears "in
     * progress". Default 5 seconds. {@link #build()} rejects a negative value.
     */
    public Builder maxWait(Duration maxWait) {
      Objects.requireNonNull(maxWait, "maxWait");
      engineSteps = engineSteps.andThen(e -> e.maxWait(maxWait));
      return this;
    }

    /**
     * The largest tool response body (UTF-8 bytes of its JSON) that the ledger records. A
     * transactional tool whose response is larger is rolled back; an external tool's (whose effect
     * already happened) leaves the operation UNKNOWN. Default 64 KiB. {@link #build()} rejects a
     * value below 1.
     */
    public Builder maxResponseBytes(int maxResponseBytes) {
      engineSteps = engineSteps.andThen(e -> e.maxResponseBytes(maxResponseBytes));
      return this;
    }

    /**
     * How many times recovery may take over a leased claim of an external tool whose outcome it
     * could not settle before it records UNKNOWN. Default 5. {@link #build()} rejects a value below
     * 1.
     */
    public Builder maxTakeovers(int maxTakeovers) {
      engineSteps = engineSteps.andThen(e -> e.maxTakeovers(maxTakeovers));
      return this;
    }

    /** This node's name in claims and logs; default the host name and process id. */
    public Builder nodeId(String nodeId) {
      this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
      return this;
    }

    private EngineConfig engineConfig() {
      EngineConfig.Builder engine = EngineConfig.builder().nodeId(nodeId).clock(clock);
      newOperationLimit.ifPresentOrElse(engine::newOperationLimit, engine::unlimitedNewOperations);
      engineSteps.accept(engine);
      return engine.build();
    }

    /**
     * Opens the database, applies the ledger's and the plugins' migrations, and starts.
     *
     * @throws IllegalArgumentException for a bad plugin, option or tool (the database is closed)
     */
    public ToolLedger build() {
      JdbcLedgerStore store = open();
      try {
        ToolLedgerApp.Builder builder = node(store);
        http.ifPresent(builder::serverConfig);
        ToolLedgerApp app;
        if (http.isEmpty()) {
          app = builder.startWithoutHttp();
        } else if (mounted) {
          app = builder.startMounted();
        } else {
          app = builder.start();
        }
        return new ToolLedger(store, app, http.isPresent() && !mounted, mounted);
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
    }

    /**
     * Opens the database like {@link #build()} and serves the tools over MCP on {@code in} and
     * {@code out} (normally {@code System.in} and {@code System.out}) instead of HTTP, every call
     * acting as {@code tenant}: whoever can start this process is trusted with that tenant. For an
     * application that an MCP client starts as its server process. Only the protocol is written to
     * {@code out}. The background workers run as with {@link #build()}; {@link #http}, {@link
     * #mountedHttp} and the session settings of HTTP do not apply.
     *
     * @throws IllegalArgumentException for a bad plugin, option or tool (the database is closed)
     * @throws IllegalStateException when MCP is turned off ({@link #mcpEnabled})
     */
    public StdioSession serveStdio(TenantId tenant, InputStream in, OutputStream out) {
      Objects.requireNonNull(tenant, "tenant");
      Objects.requireNonNull(in, "in");
      Objects.requireNonNull(out, "out");
      JdbcLedgerStore store = open();
      try {
        return new StdioSession(store, node(store).startStdio(tenant, in, out));
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
    }

    private JdbcLedgerStore open() {
      return dataSource != null
          ? JdbcLedgerStore.onDataSource(dataSource, busyTimeout, claimWait, List.of())
          : location.open(List.of(), synchronous, busyTimeout, claimWait);
    }

    private ToolLedgerApp.Builder node(JdbcLedgerStore store) {
      ToolLedgerApp.Builder builder =
          ToolLedgerApp.builder(store)
              .engineConfig(engineConfig())
              .clock(clock)
              .mcp(mcpEnabled ? mcp.build() : McpOptions.disabled());
      steps.accept(builder);
      return builder;
    }
  }
}
