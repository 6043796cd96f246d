package dev.toolledger.guard;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.SqliteActionJournal;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code toolledger guard}: the execution layer on the agent's side for MCP hosts that send no
 * operation key. A stdio MCP server that a host launches in place of the node's URL; it forwards
 * {@code tools/list} and {@code tools/call} to a ToolLedger node over Streamable HTTP.
 *
 * <pre>{@code
 * GuardConfig config = GuardConfig.builder()
 *     .endpoint(URI.create("http://127.0.0.1:8080/mcp"))
 *     .token(System.getenv("TOOLLEDGER_TOKEN"))
 *     .journal(Path.of("guard-journal.db"))
 *     .build();
 * try (Guard guard = Guard.start(config, System.in, System.out)) {
 *   guard.awaitEndOfInput();
 * }
 * }</pre>
 *
 * <p>What it guarantees: every call of a node tool is one action of the journal, whose key is
 * minted and made durable before anything is sent and is sent on every attempt, retry and restart;
 * an identical call (same tool, same canonical arguments) while an action has no definitive answer
 * and within the claim window is that same action ({@link ActionClaims}); the host hears executed,
 * replayed, refused or unknown, and unknown is never presented as a failure ({@link GuardAnswers}).
 * What it does not guarantee: that a host which gives up on a call before the guard answers (a
 * request timeout shorter than the retry deadline) and then calls with other arguments does not
 * make a second action; or that an answer the guard journaled and then could not write to stdout
 * (the guard killed in that instant) is offered again: the next identical call is then a new
 * action.
 */
public final class Guard implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Guard.class);

  /** How often the node's tools are asked for again when the node was unreachable at start. */
  static final long TOOLS_RETRY_SECONDS = 5;

  static final String INSTRUCTIONS =
      "ToolLedger guard: each call of a write tool is one action, journaled with its own operation"
          + " key and retried safely. A call identical to an earlier one whose answer did not"
          + " arrive is the same action and is not repeated. Results say executed, replayed,"
          + " refused or unknown. Unknown means it may have happened: do not repeat it with"
          + " changed arguments; check it with get-operation {\"action\": ...} or"
          + " pending-actions.";

  private final ActionJournal journal;
  private final NodeLink node;
  private final McpSyncServer server;
  private final EndOfInput input;
  private final ScheduledExecutorService background;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Guard(
      ActionJournal journal,
      NodeLink node,
      McpSyncServer server,
      EndOfInput input,
      ScheduledExecutorService background) {
    this.journal = journal;
    this.node = node;
    this.server = server;
    this.input = input;
    this.background = background;
  }

  /**
   * Opens the journal, asks the node for its tools (once, within the attempt timeout; when the node
   * does not answer, the guard starts with its own tools and adds the node's when it answers, with
   * a list-changed notification), and serves MCP on {@code in} and {@code out}. Only the protocol
   * is written to {@code out}. Then looks up, in the background, the actions a previous run left
   * without an answer.
   */
  public static Guard start(GuardConfig config, InputStream in, OutputStream out) {
    Objects.requireNonNull(config, "config");
    ActionJournal journal =
        SqliteActionJournal.builder(config.journal()).clock(config.clock()).open();
    NodeLink node = null;
    ScheduledExecutorService background =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "toolledger-guard-background");
              t.setDaemon(true);
              return t;
            });
    try {
      node = NodeLink.open(config);
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .journal(journal)
              .transport(node.transport())
              .retryPolicy(config.retryPolicy())
              .attemptTimeout(config.attemptTimeout())
              .clock(config.clock())
              .build();
      ActionClaims claims =
          new ActionClaims(journal, config.session(), config.claimWindow(), config.clock());
      GuardTools tools = new GuardTools(client, claims, config.session());
      List<SyncToolSpecification> specs = new ArrayList<>(tools.own());
      List<Tool> nodeTools = fetchTools(node);
      if (nodeTools != null) {
        specs.addAll(forwarded(tools, nodeTools));
      }
      EndOfInput input = new EndOfInput(in);
      JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
      McpSyncServer server =
          McpServer.sync(new StdioServerTransportProvider(mapper, input, out))
              .serverInfo("toolledger-guard", version())
              .instructions(INSTRUCTIONS)
              .capabilities(ServerCapabilities.builder().tools(true).build())
              .jsonMapper(mapper)
              // The node validates arguments and answers its invalid-parameters problem.
              .validateToolInputs(false)
              .tools(specs)
              .build();
      Guard guard = new Guard(journal, node, server, input, background);
      if (nodeTools == null) {
        guard.addToolsLater(tools, node);
      }
      background.execute(tools::checkAtStart);
      LOG.info(
          "toolledger guard: serving MCP on stdio for {} (journal {}, session {})",
          config.endpoint(),
          config.journal(),
          config.session());
      return guard;
    } catch (RuntimeException e) {
      background.shutdownNow();
      if (node != null) {
        node.close();
      }
      journal.close();
      throw e;
    }
  }

  /** Blocks until the host closes the guard's input. */
  public void awaitEndOfInput() throws InterruptedException {
    input.await();
  }

  /** Closes the MCP session, the link to the node and the journal. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    background.shutdownNow();
    try {
      server.closeGracefully();
    } catch (RuntimeException e) {
      LOG.debug("the MCP session did not close gracefully: {}", e.getMessage());
    }
    node.close();
    journal.close();
  }

  private static List<Tool> fetchTools(NodeLink node) {
    try {
      return node.tools();
    } catch (RuntimeException e) {
      LOG.warn(
          "the node did not list its tools ({}); starting with the guard's own and asking again"
              + " every {} s",
          e.getClass().getSimpleName(),
          TOOLS_RETRY_SECONDS);
      return null;
    }
  }

  private static final Set<String> OWN =
      Set.of(GuardConventions.PENDING_ACTIONS, GuardConventions.GET_OPERATION);

  private static List<SyncToolSpecification> forwarded(GuardTools tools, List<Tool> nodeTools) {
    List<SyncToolSpecification> specs = new ArrayList<>();
    for (Tool tool : nodeTools) {
      if (OWN.contains(tool.name())) {
        continue; // the node's get-operation takes keys; the guard's takes action ids
      }
      specs.add(tools.forwarded(tool));
    }
    return specs;
  }

  // Nothing reads the futures: fetchTools logs a node that does not answer and returns null.
  @SuppressWarnings("FutureReturnValueIgnored")
  private void addToolsLater(GuardTools tools, NodeLink node) {
    background.schedule(
        new Runnable() {
          @Override
          public void run() {
            List<Tool> nodeTools = fetchTools(node);
            if (nodeTools == null) {
              if (!closed.get()) {
                background.schedule(this, TOOLS_RETRY_SECONDS, TimeUnit.SECONDS);
              }
              return;
            }
            for (SyncToolSpecification spec : forwarded(tools, nodeTools)) {
              server.addTool(spec);
            }
            server.notifyToolsListChanged();
            LOG.info("the node listed its tools; the host was told the list changed");
          }
        },
        TOOLS_RETRY_SECONDS,
        TimeUnit.SECONDS);
  }

  static String version() {
    String version = Guard.class.getPackage().getImplementationVersion();
    return version == null ? "development" : version;
  }
}
