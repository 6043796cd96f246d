package dev.toolledger.cli;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.auth.OperatorAuthenticator;
import dev.toolledger.server.mcp.McpOptions;
import dev.toolledger.server.observe.MetricsAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code toolledger serve}: the HTTP API and MCP at /mcp until SIGTERM or Ctrl-C. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description =
        "Serve the ToolLedger HTTP API, and MCP (Streamable HTTP) at /mcp on the same port, until"
            + " stopped (SIGTERM or Ctrl-C stop it cleanly).")
final class ServeCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;
  @Mixin PluginOptions plugins;
  @Mixin RetentionOptions retention;
  @Mixin LimitOptions limits;

  @Mixin LoggingOptions logging;

  @Mixin OperatorOptions operator;

  @Option(
      names = "--metrics",
      paramLabel = "loopback|operator|open|off",
      description =
          "Who may read GET /metrics: loopback clients without a token and others with the"
              + " operator token (loopback, the default); only holders of the operator token"
              + " (operator); anyone (open); nobody (off).",
      defaultValue = "loopback")
  MetricsAccess metrics;

  @Option(
      names = "--stale-after",
      paramLabel = "DURATION",
      description =
          "Age from which an IN_PROGRESS operation needs attention, in metrics and the console"
              + " (default: ${DEFAULT-VALUE}).",
      defaultValue = "5m",
      converter = DurationConverter.class)
  Duration staleAfter;

  @Option(
      names = "--port",
      description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).",
      defaultValue = "" + ServerConfig.DEFAULT_PORT)
  int port;

  @Option(
      names = "--bind",
      paramLabel = "ADDR",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).",
      defaultValue = ServerConfig.DEFAULT_BIND)
  String bind;

  @Option(
      names = "--max-wait",
      paramLabel = "DURATION",
      description =
          "Longest wait of a duplicate request for a concurrent execution of its key before it"
              + " hears 409 in progress (default: ${DEFAULT-VALUE}).",
      defaultValue = "5s",
      converter = DurationConverter.class)
  Duration maxWait;

  @Option(
      names = "--max-request-bytes",
      description = "Largest accepted request body (default: ${DEFAULT-VALUE}).",
      defaultValue = "" + ServerConfig.DEFAULT_MAX_REQUEST_BYTES)
  int maxRequestBytes;

  @Option(
      names = "--notes-quota",
      paramLabel = "N",
      description =
          "Refuse more than N notes per tenant (a recorded business error). Default: none.")
  Long notesQuota;

  @Option(names = "--no-mcp", description = "Do not serve MCP at /mcp.")
  boolean noMcp;

  @Option(
      names = "--allow-unkeyed",
      paramLabel = "TOOL",
      description =
          "Let MCP calls of TOOL come without an operation key; the server mints a fresh key for"
              + " each, so such a call is NOT safe to retry. Repeatable. Default: every write"
              + " tool requires a key.")
  List<String> allowUnkeyed = new ArrayList<>();

  @Option(
      names = "--allowed-origin",
      paramLabel = "ORIGIN",
      description =
          "Accept requests from browser pages of ORIGIN (e.g. https://console.example.com; * for"
              + " any). Repeatable. A request with another Origin header is answered 403 before"
              + " anything runs. Default: the server's own origins on loopback"
              + " (http://127.0.0.1:PORT, http://localhost:PORT, http://[::1]:PORT). Requests"
              + " without Origin (curl, SDKs, agents) are not affected.")
  List<String> allowedOrigins = new ArrayList<>();

  @Option(
      names = "--allowed-host",
      paramLabel = "HOST",
      description =
          "Accept requests whose Host is HOST (a name, any port, or NAME:PORT; * for any)."
              + " Repeatable. A request naming another host is answered 421 before anything runs"
              + " (DNS rebinding). Default: a request that came in on a loopback address must name"
              + " localhost, 127.0.0.1 or [::1] (any port); requests on other addresses are not"
              + " checked.")
  List<String> allowedHosts = new ArrayList<>();

  @Option(
      names = "--body-timeout",
      paramLabel = "DURATION",
      description =
          "Time a request's body gets to arrive in full; a slower client is answered 408 and"
              + " closed (default: ${DEFAULT-VALUE}).",
      defaultValue = "10s",
      converter = DurationConverter.class)
  Duration bodyTimeout;

  @Option(
      names = "--idle-timeout",
      paramLabel = "DURATION",
      description = "Close a connection that stays silent this long (default: ${DEFAULT-VALUE}).",
      defaultValue = "30s",
      converter = DurationConverter.class)
  Duration idleTimeout;

  @Option(
      names = "--mcp-session-idle",
      paramLabel = "DURATION",
      description =
          "Forget an MCP session after this long without a request; its client then opens a new"
              + " one (default: ${DEFAULT-VALUE}).",
      defaultValue = "30m",
      converter = DurationConverter.class)
  Duration mcpSessionIdle;

  @Option(
      names = "--mcp-max-sessions",
      paramLabel = "N",
      description =
          "Open MCP sessions one token may hold at once; one more initialize is answered 429"
              + " (default: ${DEFAULT-VALUE}).",
      defaultValue = "" + McpOptions.DEFAULT_MAX_SESSIONS_PER_TOKEN)
  int mcpMaxSessions;

  @Option(
      names = "--attachments-url",
      paramLabel = "URL",
      description =
          "Where note attachments are delivered (e.g. http://127.0.0.1:8090/v1/attachments, see"
              + " 'toolledger attachments serve'). When set, create-note accepts an 'attachment'"
              + " and commits an outbox event with the note. Default: none.")
  java.net.URI attachmentsUrl;

  @Option(
      names = "--relay",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Run an outbox relay on this node (default: ${DEFAULT-VALUE}).")
  boolean relay;

  /** The shortcut flags as the notes plugin's options: --tool-option notes.* says the same. */
  private Map<String, String> notesOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    if (notesQuota != null) {
      options.put("quota", Long.toString(notesQuota));
    }
    if (attachmentsUrl != null) {
      options.put("attachments", attachmentsUrl.toString());
    }
    return options;
  }

  @Option(
      names = "--token-cache",
      paramLabel = "DURATION",
      description =
          "How long an accepted token is trusted without reading it again; a token revoked by"
              + " another process keeps working here for at most this long; 0 reads it on every"
              + " request (default: ${DEFAULT-VALUE}).",
      defaultValue = "5s",
      converter = DurationConverter.class)
  Duration tokenCache;

  @Override
  public Integer call() throws Exception {
    McpOptions.Builder mcp =
        McpOptions.builder()
            .enabled(!noMcp)
            .sessionIdleTimeout(mcpSessionIdle)
            .maxSessionsPerToken(mcpMaxSessions);
    allowUnkeyed.forEach(mcp::allowUnkeyed);
    McpOptions mcpOptions = mcp.build();
    OperatorAuthenticator operators = operator.operators(System.getenv());
    ServerConfig.Builder server =
        ServerConfig.builder()
            .bind(bind)
            .port(port)
            .maxRequestBytes(maxRequestBytes)
            .bodyTimeout(bodyTimeout)
            .idleTimeout(idleTimeout);
    allowedOrigins.forEach(server::allowedOrigin);
    allowedHosts.forEach(server::allowedHost);
    ServerConfig serverConfig = server.build(); // so does a bad --allowed-origin
    plugins.declaredTools(); // a bad tools file stops here, before the database is touched
    JdbcLedgerStore store = database.open(maxWait);
    ToolLedgerApp app;
    try {
      app =
          plugins
              .apply(ToolLedgerApp.builder(store), store, Map.of("notes", notesOptions()))
              .serverConfig(serverConfig)
              .engineConfig(
                  limits.apply(retention.apply(EngineConfig.builder().maxWait(maxWait))).build())
              .sweepInterval(retention.sweepInterval)
              .adoptLedgerSettings(retention.adoptSettings)
              .sharedRateLimit(limits.rateLimit != null && limits.shared(store.dialect()))
              .relayEnabled(relay)
              .tokenCacheTtl(tokenCache)
              .mcp(mcpOptions)
              .operators(operators)
              .metricsAccess(metrics)
              .staleAfter(staleAfter)
              .start();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    CountDownLatch stopped =
        StopSignal.onStop(
            "toolledger-shutdown",
            () -> {
              System.out.println("toolledger: stopping; letting requests in flight finish");
              app.close();
              store.close();
            });
    String durability =
        store.dialect() == SqlDialect.SQLITE ? ", synchronous=" + database.synchronous : "";
    System.out.println(
        "toolledger: serving "
            + app.uri()
            + " ("
            + app.mcpUri().map(uri -> "MCP at " + uri + "; ").orElse("")
            + "ledger "
            + store.description()
            + durability
            + ")");
    System.out.flush();
    stopped.await();
    return 0;
  }
}
