package dev.toolledger.server;

import dev.toolledger.api.ReadView;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExpirySweeper;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.OutcomeListener;
import dev.toolledger.core.engine.RecoveryReport;
import dev.toolledger.core.engine.RecoveryWorker;
import dev.toolledger.core.outbox.OutboxRelay;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.LedgerSettings;
import dev.toolledger.protocol.NotApi;
import dev.toolledger.server.auth.OperatorAuthenticator;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.console.ConsoleServlet;
import dev.toolledger.server.http.DatabaseHealthCheck;
import dev.toolledger.server.http.StorageFaultHealth;
import dev.toolledger.server.mcp.McpConventions;
import dev.toolledger.server.mcp.McpOptions;
import dev.toolledger.server.mcp.McpService;
import dev.toolledger.server.mcp.McpStdio;
import dev.toolledger.server.observe.MetricsAccess;
import dev.toolledger.server.observe.MetricsServlet;
import dev.toolledger.server.observe.Observability;
import dev.toolledger.server.outbox.HttpDeliverer;
import dev.toolledger.server.plugins.PluginRegistration;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;

// Over 600 lines because it is the one assembly of a node: the Builder's twenty-odd options, each
// a documented setter naming its default, and the steps that wire them. Splitting the options from
// their wiring would make a reader look in two places for what one option does.
/**
 * A complete ToolLedger node on an open store: the engine with the notes reference tool, token
 * authentication and the HTTP server with the MCP endpoint at {@value McpConventions#PATH}, the
 * metrics at {@value MetricsServlet#PATH} and the operations console at {@value
 * ConsoleServlet#PATH}. The CLI's {@code serve}, {@code mcp --stdio} and {@code demo} and the tests
 * start nodes through this one door, so they run the same assembly.
 *
 * <p>The store is not owned: close it after the app.
 */
@NotApi
public final class ToolLedgerApp implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ToolLedgerApp.class);
  private final JdbcLedgerStore store;
  private final LedgerEngine engine;
  private final Tokens tokens;
  private final Optional<ToolLedgerServer> server;
  private final Optional<HttpMount> mount;
  private final Optional<OutboxRelay> relay;
  private final Optional<RecoveryWorker> recovery;
  private final Optional<ExpirySweeper> sweeper;
  private final Observability observability;

  private ToolLedgerApp(
      JdbcLedgerStore store,
      LedgerEngine engine,
      Tokens tokens,
      Optional<ToolLedgerServer> server,
      Optional<HttpMount> mount,
      Optional<OutboxRelay> relay,
      Optional<RecoveryWorker> recovery,
      Optional<ExpirySweeper> sweeper,
      Observability observability) {
    this.store = store;
    this.engine = engine;
    this.tokens = tokens;
    this.server = server;
    this.mount = mount;
    this.relay = relay;
    this.recovery = recovery;
    this.sweeper = sweeper;
    this.observability = observability;
  }

  public static Builder builder(JdbcLedgerStore store) {
    return new Builder(store);
  }

  /**
   * Where the HTTP API listens.
   *
   * @throws IllegalStateException when the node was started without HTTP
   */
  public URI uri() {
    return server
        .orElseThrow(() -> new IllegalStateException("this node was started without HTTP"))
        .uri();
  }

  /** The MCP endpoint, for example {@code http://127.0.0.1:8080/mcp}; empty when turned off. */
  public Optional<URI> mcpUri() {
    return server
        .filter(ToolLedgerServer::servesMcp)
        .map(http -> http.uri().resolve(McpConventions.PATH));
  }

  public JdbcLedgerStore store() {
    return store;
  }

  /**
   * The API and MCP as servlets and filters, for the application's own servlet container.
   *
   * @throws IllegalStateException unless the node was started with {@link Builder#startMounted()}
   */
  public HttpMount httpMount() {
    return mount.orElseThrow(
        () -> new IllegalStateException("this node was not started with startMounted()"));
  }

  public LedgerEngine engine() {
    return engine;
  }

  public Tokens tokens() {
    return tokens;
  }

  /** The node's metrics (also served at {@value MetricsServlet#PATH} unless turned off). */
  public Observability observability() {
    return observability;
  }

  /**
   * Stops the HTTP server gracefully (requests in flight finish first), then the background
   * workers. Undelivered outbox events stay in the database for the next start.
   */
  @Override
  public void close() {
    server.ifPresent(ToolLedgerServer::close);
    mount.ifPresent(HttpMount::close);
    relay.ifPresent(OutboxRelay::close);
    recovery.ifPresent(RecoveryWorker::close);
    sweeper.ifPresent(ExpirySweeper::close);
    observability.close();
  }

  /** Assembles a node. */
  public static final class Builder {
    private final JdbcLedgerStore store;
    private ServerConfig serverConfig = ServerConfig.builder().build();
    private EngineConfig engineConfig = EngineConfig.defaults();
    private Clock clock = Clock.systemUTC();
    private final List<PluginRegistration.Configured> plugins = new ArrayList<>();
    private final List<Tool> extraTools = new ArrayList<>();
    private final List<ReadView> readViews = new ArrayList<>();
    private UnaryOperator<Tool> toolDecorator = UnaryOperator.identity();
    private McpOptions mcp = McpOptions.defaults();
    private boolean relayEnabled = true;
    private Duration tokenCacheTtl = Tokens.DEFAULT_CACHE_TTL;
    private UnaryOperator<OutboxRelay.Builder> relayOptions = UnaryOperator.identity();
    private Duration recoveryInterval = RecoveryWorker.DEFAULT_INTERVAL;
    private Duration sweepInterval = ExpirySweeper.DEFAULT_INTERVAL;
    private int sweepBatchSize = ExpirySweeper.DEFAULT_BATCH_SIZE;
    private OperatorAuthenticator operators = OperatorAuthenticator.none();
    private MetricsAccess metricsAccess = MetricsAccess.LOOPBACK;
    private Duration staleAfter = Observability.DEFAULT_STALE_AFTER;
    private boolean sharedRateLimit;
    private boolean adoptSettings;
    private MeterRegistry applicationMeters;
    private UnaryOperator<Handler> httpFront = UnaryOperator.identity();

    private Builder(JdbcLedgerStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    public Builder serverConfig(ServerConfig serverConfig) {
      this.serverConfig = Objects.requireNonNull(serverConfig, "serverConfig");
      return this;
    }

    public Builder engineConfig(EngineConfig engineConfig) {
      this.engineConfig = Objects.requireNonNull(engineConfig, "engineConfig");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Serves a plugin's tools, tables and read views. At start its tables are migrated in the
     * ledger's database (once per database, under a lock every node shares), then its tools are
     * registered beside every other tool; names must be unique.
     */
    public Builder plugin(ToolPlugin plugin) {
      return plugin(plugin, Map.of());
    }

    /**
     * Serves a plugin configured with {@code options}; an option it did not declare in {@link
     * ToolPlugin#optionNames()} stops the start.
     */
    public Builder plugin(ToolPlugin plugin, Map<String, String> options) {
      this.plugins.add(new PluginRegistration.Configured(plugin, options));
      return this;
    }

    /** Serves a read view of the tenant's data at {@code GET /v1/{path}}. */
    public Builder readView(ReadView view) {
      this.readViews.add(Objects.requireNonNull(view, "view"));
      return this;
    }

    /** Serves a tool whose tables, if any, already exist. */
    public Builder tool(Tool tool) {
      this.extraTools.add(Objects.requireNonNull(tool, "tool"));
      return this;
    }

    /**
     * Wraps every tool before it is registered. Meant for fault injection in tests and the demo; it
     * is not reachable from any request.
     */
    public Builder toolDecorator(UnaryOperator<Tool> toolDecorator) {
      this.toolDecorator = Objects.requireNonNull(toolDecorator, "toolDecorator");
      return this;
    }

    /**
     * How long an accepted bearer token is trusted without reading it again; a token revoked
     * elsewhere keeps working on this node for at most this long. Zero reads it on every request.
     * Default 5 seconds.
     */
    public Builder tokenCacheTtl(Duration tokenCacheTtl) {
      this.tokenCacheTtl = Objects.requireNonNull(tokenCacheTtl, "tokenCacheTtl");
      return this;
    }

    /** Whether this node runs an outbox relay. Default true. */
    public Builder relayEnabled(boolean relayEnabled) {
      this.relayEnabled = relayEnabled;
      return this;
    }

    /** Adjusts the relay's settings (backoff, attempts, poll interval). */
    public Builder relay(UnaryOperator<OutboxRelay.Builder> relayOptions) {
      this.relayOptions = Objects.requireNonNull(relayOptions, "relayOptions");
      return this;
    }

    /**
     * Pause between recovery passes over expired claims; zero turns recovery off on this node.
     * Default 2 seconds.
     */
    public Builder recoveryInterval(Duration recoveryInterval) {
      if (recoveryInterval == null || recoveryInterval.isNegative()) {
        throw new IllegalArgumentException("recoveryInterval must be zero or positive");
      }
      this.recoveryInterval = recoveryInterval;
      return this;
    }

    /**
     * Pause between passes of the sweeper that deletes expired records (leaving tombstones); zero
     * turns sweeping off on this node. Default 1 minute.
     */
    public Builder sweepInterval(Duration sweepInterval) {
      if (sweepInterval == null || sweepInterval.isNegative()) {
        throw new IllegalArgumentException("sweepInterval must be zero or positive");
      }
      this.sweepInterval = sweepInterval;
      return this;
    }

    /**
     * Applies the engine's rate limit of new operations across every node on this ledger (buckets
     * in the database, {@link JdbcLedgerStore#sharedRateBuckets()}) instead of per node in memory.
     * PostgreSQL only: {@link #start()} refuses it on SQLite. Default false (per node).
     */
    public Builder sharedRateLimit(boolean sharedRateLimit) {
      this.sharedRateLimit = sharedRateLimit;
      return this;
    }

    /**
     * At start, the node compares its retention settings (each served tool's retention and the
     * tombstone window) with those recorded in the ledger and refuses to start on a difference
     * ({@link SettingsMismatchException}); the first node records them. With {@code true} it
     * records its own over the ledger's instead, and logs each change as a warning: an operator
     * changing the settings on purpose. Default false.
     */
    public Builder adoptLedgerSettings(boolean adoptSettings) {
      this.adoptSettings = adoptSettings;
      return this;
    }

    /** Expired records (or tombstones) the sweeper deletes per transaction. Default 500. */
    public Builder sweepBatchSize(int sweepBatchSize) {
      if (sweepBatchSize < 1) {
        throw new IllegalArgumentException("sweepBatchSize must be at least 1");
      }
      this.sweepBatchSize = sweepBatchSize;
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
     * Who else may operate this node (use the console, read metrics where they ask for a token)
     * besides holders of an operator-scoped token from the token store, who always may. Default:
     * nobody else ({@link OperatorAuthenticator#none()}).
     */
    public Builder operators(OperatorAuthenticator operators) {
      this.operators = Objects.requireNonNull(operators, "operators");
      return this;
    }

    /** Who may read {@code GET /metrics}. Default {@link MetricsAccess#LOOPBACK}. */
    public Builder metricsAccess(MetricsAccess metricsAccess) {
      this.metricsAccess = Objects.requireNonNull(metricsAccess, "metricsAccess");
      return this;
    }

    /**
     * Age from which an {@code IN_PROGRESS} operation needs attention (metrics, console). Default 5
     * minutes.
     */
    public Builder staleAfter(Duration staleAfter) {
      if (staleAfter == null || staleAfter.isNegative() || staleAfter.isZero()) {
        throw new IllegalArgumentException("staleAfter must be positive");
      }
      this.staleAfter = staleAfter;
      return this;
    }

    /**
     * Also registers the ledger's own meters (requests, effects, latencies, database gauges) in the
     * embedding application's registry, beside the node's. Default: the node's registry only.
     */
    public Builder meterRegistry(MeterRegistry applicationMeters) {
      this.applicationMeters = Objects.requireNonNull(applicationMeters, "applicationMeters");
      return this;
    }

    /**
     * Puts a Jetty handler in front of what the node serves, on its connector and threads (see
     * {@link ToolLedgerServer.Builder#front}): the benchmark harness's HTTP floors. Applies to
     * {@link #start()} only. Default: none.
     */
    public Builder httpFront(UnaryOperator<Handler> httpFront) {
      this.httpFront = Objects.requireNonNull(httpFront, "httpFront");
      return this;
    }

    /** Starts the HTTP server (with the MCP endpoint unless turned off). */
    public ToolLedgerApp start() {
      return assemble(Http.OWN_SERVER);
    }

    /**
     * Starts the node without a listener of its own: the API and MCP (unless turned off) are handed
     * out by {@link ToolLedgerApp#httpMount()} for the application's servlet container, with the
     * server config's request bound and allowed origins; its bind address, port and shutdown grace
     * do not apply. The metrics endpoint and the operations console are not part of it. The
     * background workers run as with {@link #start()}.
     */
    public ToolLedgerApp startMounted() {
      return assemble(Http.MOUNTED);
    }

    /**
     * Starts the node without any listener: the engine for in-process calls, and the background
     * workers (outbox relay, recovery, retention sweeper).
     */
    public ToolLedgerApp startWithoutHttp() {
      return assemble(Http.NONE);
    }

    private enum Http {
      NONE,
      OWN_SERVER,
      MOUNTED
    }

    private ToolLedgerApp assemble(Http http) {
      PluginRegistration registration = registerPlugins();
      ToolRegistry registry = tools(registration);
      // Mounted in (or embedded without HTTP in) an application with its own registry, nothing
      // scrapes the node's: the ledger's meters go to the application's alone.
      Observability observability =
          http != Http.OWN_SERVER && applicationMeters != null
              ? Observability.forApplication(
                  store,
                  name -> registry.find(name).isPresent(),
                  clock,
                  staleAfter,
                  applicationMeters)
              : Observability.create(
                  store,
                  name -> registry.find(name).isPresent(),
                  clock,
                  staleAfter,
                  applicationMeters);
      DatabaseHealthCheck probe = new DatabaseHealthCheck(store);
      StorageFaultHealth health = new StorageFaultHealth(probe, probe.growing());
      LedgerEngine engine = engine(registry, both(observability.listener(), health));
      Tokens tokens = new Tokens(store, clock, tokenCacheTtl);
      Optional<ToolLedgerServer> server = Optional.empty();
      Optional<HttpMount> mounted = Optional.empty();
      if (http != Http.NONE) {
        try {
          ToolLedgerServer.Builder serverBuilder =
              ToolLedgerServer.builder(engine, tokens).config(serverConfig).health(health).mcp(mcp);
          registration
              .readEndpoints(store.dataSource(), store.dialect())
              .forEach(serverBuilder::readEndpoint);
          if (http == Http.MOUNTED) {
            mounted = Optional.of(serverBuilder.mountable());
          } else {
            server =
                Optional.of(
                    serverBuilder
                        .mount(
                            context ->
                                mountOperations(
                                    context,
                                    observability,
                                    engine,
                                    operators.or(OperatorAuthenticator.tokens(tokens))))
                        .front(httpFront)
                        .start());
            observability.bindHttpThreads(server.get().threadPool());
          }
        } catch (RuntimeException e) {
          observability.close();
          throw e;
        }
      }
      return new ToolLedgerApp(
          store,
          engine,
          tokens,
          server,
          mounted,
          relay(),
          recovery(engine, observability::onRecovery),
          sweeper(engine),
          observability);
    }

    private void mountOperations(
        ServletContextHandler context,
        Observability observability,
        LedgerEngine engine,
        OperatorAuthenticator operators) {
      if (metricsAccess != MetricsAccess.OFF) {
        context.addServlet(
            new ServletHolder(
                "metrics", new MetricsServlet(observability, metricsAccess, operators)),
            MetricsServlet.PATH);
      }
      ServletHolder console =
          new ServletHolder(
              "console", new ConsoleServlet(engine, store, operators, clock, staleAfter));
      context.addServlet(console, ConsoleServlet.PATH);
      context.addServlet(console, ConsoleServlet.PATH + "/*");
    }

    /**
     * Serves the same tools over MCP on the given streams (normally stdin and stdout) instead of
     * HTTP, every call acting as {@code tenant}: whoever can run this process is trusted with that
     * tenant. Only the protocol is written to {@code out}. The node's background workers (outbox
     * relay, recovery) run as with {@link #start()}.
     *
     * @throws IllegalStateException when MCP is turned off
     */
    public ToolLedgerStdio startStdio(TenantId tenant, InputStream in, OutputStream out) {
      Objects.requireNonNull(tenant, "tenant");
      if (!mcp.enabled()) {
        throw new IllegalStateException("MCP is turned off (mcp options: enabled=false)");
      }
      LedgerEngine engine = engine(tools(registerPlugins()), OutcomeListener.NONE);
      McpStdio mcpStdio =
          McpService.create(engine, mcp).serveStdio(new Principal(tenant, "stdio"), in, out);
      return new ToolLedgerStdio(
          mcpStdio, relay(), recovery(engine, report -> {}), sweeper(engine));
    }

    private Optional<OutboxRelay> relay() {
      return relayEnabled
          ? Optional.of(
              relayOptions
                  .apply(
                      OutboxRelay.builder(store, new HttpDeliverer(HttpDeliverer.DEFAULT_TIMEOUT))
                          .owner(engineConfig.nodeId()))
                  .build()
                  .start())
          : Optional.empty();
    }

    private Optional<RecoveryWorker> recovery(
        LedgerEngine engine, Consumer<RecoveryReport> onPass) {
      return recoveryInterval.isZero()
          ? Optional.empty()
          : Optional.of(RecoveryWorker.start(engine, recoveryInterval, 100, onPass));
    }

    private Optional<ExpirySweeper> sweeper(LedgerEngine engine) {
      return sweepInterval.isZero()
          ? Optional.empty()
          : Optional.of(ExpirySweeper.start(engine, sweepInterval, sweepBatchSize));
    }

    /** Registers the plugins and migrates their tables before anything is served. */
    private PluginRegistration registerPlugins() {
      PluginRegistration registration = PluginRegistration.register(plugins, store.dialect());
      readViews.forEach(registration::addReadView);
      if (!registration.tables().isEmpty()) {
        store.migrateComponents(registration.tables());
      }
      return registration;
    }

    private ToolRegistry tools(PluginRegistration registration) {
      List<Tool> tools = new ArrayList<>();
      registration.tools().forEach(tool -> tools.add(toolDecorator.apply(tool)));
      extraTools.forEach(tool -> tools.add(toolDecorator.apply(tool)));
      return ToolRegistry.of(tools);
    }

    /** Tells {@code first}, then {@code second}, of every outcome. */
    private static OutcomeListener both(OutcomeListener first, OutcomeListener second) {
      return new OutcomeListener() {
        @Override
        public void onOutcome(
            dev.toolledger.api.TenantId tenant, String tool, String kind, Duration duration) {
          first.onOutcome(tenant, tool, kind, duration);
          second.onOutcome(tenant, tool, kind, duration);
        }

        @Override
        public void onEffect(dev.toolledger.api.TenantId tenant, String tool) {
          first.onEffect(tenant, tool);
          second.onEffect(tenant, tool);
        }

        @Override
        public void onStorageFault() {
          first.onStorageFault();
          second.onStorageFault();
        }
      };
    }

    private LedgerEngine engine(ToolRegistry tools, OutcomeListener listener) {
      LedgerEngine.Builder engine =
          LedgerEngine.builder(store, tools)
              .config(engineConfig)
              .listener(listener)
              // The ledger's key hasher: every node on this database names a key alike in its logs.
              .keyHasher(store.keyHasher())
              // The ledger's downstream-key secret: unpredictable keys, alike on every node.
              .downstreamKeys(store.downstreamKeys());
      if (sharedRateLimit) {
        engine.sharedRateBuckets(store.sharedRateBuckets());
      }
      LedgerEngine built = engine.build();
      agreeOnSettings(built);
      return built;
    }

    /**
     * Retention and tombstone window decide when a record is swept and how long its key stays
     * guarded: nodes that disagree would replay a key on one node and execute it afresh on another.
     * So a node does not start with settings other than the ledger's.
     */
    private void agreeOnSettings(LedgerEngine engine) {
      Map<String, String> mine = new java.util.LinkedHashMap<>();
      mine.put("tombstone-window", engineConfig.tombstoneWindow().toString());
      for (var tool : engine.tools().all()) {
        mine.put(
            "retention." + tool.descriptor().name(),
            engine.retention(tool.descriptor()).toString());
      }
      List<LedgerSettings.Difference> differences =
          store.settings().reconcile(mine, adoptSettings, engineConfig.nodeId(), clock.instant());
      if (differences.isEmpty()) {
        return;
      }
      if (!adoptSettings) {
        throw new SettingsMismatchException(differences);
      }
      for (LedgerSettings.Difference difference : differences) {
        LOG.warn(
            "ADOPTED a new retention setting for the whole ledger: {} was {} (from {}), is now {};"
                + " restart every other node sharing this ledger with the same value",
            difference.name(),
            difference.recorded(),
            difference.recordedBy(),
            difference.mine());
      }
    }
  }
}
