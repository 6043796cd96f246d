package dev.toolledger.cli;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.ToolLedgerStdio;
import dev.toolledger.server.mcp.McpOptions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code toolledger mcp --stdio}: the ledger's tools for a local agent, over MCP on stdin and
 * stdout. Stdout carries the protocol and nothing else; logs and messages go to stderr.
 */
@Command(
    name = "mcp",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the ledger's tools over MCP on stdin/stdout for a local agent, acting as one tenant"
          + " (whoever runs this command is trusted with that tenant). Ends when the client"
          + " closes stdin, or on SIGTERM; calls already running finish and record their outcome"
          + " first.",
      "For Streamable HTTP with bearer tokens, use 'serve': it offers MCP at /mcp."
    })
final class McpCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;
  @Mixin PluginOptions plugins;
  @Mixin RetentionOptions retention;
  @Mixin LimitOptions limits;

  @Mixin LoggingOptions logging;

  @Option(
      names = "--stdio",
      required = true,
      description = "Speak MCP on stdin/stdout (this command's only transport).")
  boolean stdio;

  @Option(
      names = "--tenant",
      required = true,
      paramLabel = "NAME",
      description = "The tenant every call acts for.")
  String tenant;

  @Option(
      names = "--allow-unkeyed",
      paramLabel = "TOOL",
      description =
          "Let calls of TOOL come without an operation key; the server mints a fresh key for each,"
              + " so such a call is NOT safe to retry. Repeatable. Default: every write tool"
              + " requires a key.")
  List<String> allowUnkeyed = new ArrayList<>();

  @Option(
      names = "--max-wait",
      paramLabel = "DURATION",
      description =
          "Longest wait of a duplicate call for a concurrent execution of its key before it hears"
              + " 'in progress' (default: ${DEFAULT-VALUE}).",
      defaultValue = "5s",
      converter = DurationConverter.class)
  Duration maxWait;

  @Option(
      names = "--notes-quota",
      paramLabel = "N",
      description =
          "Refuse more than N notes per tenant (a recorded business error). Default: none.")
  Long notesQuota;

  @Option(
      names = "--attachments-url",
      paramLabel = "URL",
      description =
          "Where note attachments are delivered, as for 'serve'. When set, create-note accepts an"
              + " 'attachment' and commits an outbox event with the note. Default: none.")
  java.net.URI attachmentsUrl;

  @Option(
      names = "--relay",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Run an outbox relay in this process (default: ${DEFAULT-VALUE}).")
  boolean relay;

  @Override
  public Integer call() throws Exception {
    // The protocol owns stdout; anything else that prints goes to stderr instead of corrupting it.
    PrintStream protocol = System.out;
    System.setOut(System.err);
    TenantId tenantId = TenantId.of(tenant);
    McpOptions.Builder mcp = McpOptions.builder();
    allowUnkeyed.forEach(mcp::allowUnkeyed);
    plugins.declaredTools(); // a bad tools file stops here, before the database is touched
    JdbcLedgerStore store = database.open();
    ToolLedgerStdio server;
    try {
      server =
          plugins
              .apply(ToolLedgerApp.builder(store), store, Map.of("notes", notesOptions()))
              .engineConfig(
                  limits.apply(retention.apply(EngineConfig.builder().maxWait(maxWait))).build())
              .sweepInterval(retention.sweepInterval)
              .adoptLedgerSettings(retention.adoptSettings)
              .sharedRateLimit(limits.rateLimit != null && limits.shared(store.dialect()))
              .relayEnabled(relay)
              .mcp(mcp.build())
              .startStdio(tenantId, System.in, protocol);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    AtomicBoolean stopped = new AtomicBoolean();
    Runnable stop =
        () -> {
          if (stopped.compareAndSet(false, true)) {
            server.close();
            store.close();
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "toolledger-shutdown"));
    String durability =
        store.dialect() == SqlDialect.SQLITE ? ", synchronous=" + database.synchronous : "";
    System.err.println(
        "toolledger: serving MCP on stdio for tenant "
            + tenantId
            + " (ledger "
            + store.description()
            + durability
            + ")");
    server.awaitEndOfInput();
    stop.run();
    return 0;
  }

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
}
