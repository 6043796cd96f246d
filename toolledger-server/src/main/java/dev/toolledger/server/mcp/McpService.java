package dev.toolledger.server.mcp;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.OutcomeListener;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.observe.RequestIds;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The MCP face of a ToolLedger node: every tool of the engine as an MCP tool, plus {@code
 * get-operation}, served by the official MCP Java SDK's server over Streamable HTTP (at {@value
 * McpConventions#PATH}, behind bearer tokens; the HTTP side is ToolLedger's own, which answers each
 * request with one JSON message) or over the SDK's stdio transport (for one trusted tenant).
 *
 * <p>What it guarantees: a write tool runs only under an operation key from the request's {@code
 * _meta} (or the POST's {@code Idempotency-Key} header), never from the arguments; once a call is
 * handed to the engine it runs to the end and records its outcome even when the client disconnects
 * or cancels; {@link #close()} waits (up to the drain timeout) for such calls. What it does not
 * guarantee: that a client which gives up and calls again with a new key gets no second effect.
 */
public final class McpService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(McpService.class);
  private static final String SERVER_NAME = "toolledger";
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
  private static final String INSTRUCTIONS =
      "ToolLedger makes write tools safe to retry. The client (not the model) sends an operation"
          + " key with every tools/call in params._meta[\""
          + McpConventions.OPERATION_KEY
          + "\"]: the same key for every retry of one action, a new key for every new action. A"
          + " retry replays the recorded result (_meta \""
          + McpConventions.REPLAYED
          + "\": true); the same key with other arguments is an error. Look an operation up with"
          + " the "
          + McpConventions.GET_OPERATION
          + " tool.";

  private final LedgerEngine engine;
  private final McpOptions options;
  private final LedgerTools tools;
  private final JsonMapper objectMapper;
  private final McpJsonMapper jsonMapper;
  private final List<McpAsyncServer> servers = Collections.synchronizedList(new ArrayList<>());

  private McpService(LedgerEngine engine, McpOptions options) {
    this.engine = engine;
    this.options = options;
    this.tools = new LedgerTools(engine, options);
    // Like the HTTP API, refuse a message with duplicate member names: it has no single meaning,
    // so its arguments could not have a single fingerprint.
    this.objectMapper =
        JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    this.jsonMapper = new JacksonMcpJsonMapper(objectMapper);
  }

  /**
   * Prepares the MCP face of an engine.
   *
   * @throws IllegalArgumentException when an option names a tool the engine does not have, or an
   *     engine tool is named {@value McpConventions#GET_OPERATION}
   */
  public static McpService create(LedgerEngine engine, McpOptions options) {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(options, "options");
    return new McpService(engine, options);
  }

  /**
   * The Streamable HTTP endpoint, to be served at {@value McpConventions#PATH} (an application may
   * mount the ledger under a prefix of its own) in a servlet context whose other paths belong to
   * the HTTP API. Register the {@link Endpoint#gate() gate} as a filter on the same path: requests
   * without an active bearer token get {@code 401}; see {@link McpGate} for everything else
   * answered before the SDK sees a request. Neither needs asynchronous support: every answer is
   * written on the request's own thread.
   *
   * @param listener counts the tool calls refused before they reach the engine
   * @param maxRequestBytes the largest JSON-RPC message accepted
   */
  public Endpoint endpoint(Tokens tokens, OutcomeListener listener, int maxRequestBytes) {
    JsonAnswerTransport transport =
        new JsonAnswerTransport(
            objectMapper,
            jsonMapper,
            McpService::callerOf,
            options.sessionClock(),
            // With the idle timeout as the interval, the SDK's objects of a session are freed
            // within two intervals of its last use, and never before McpSessions drops it.
            options.sessionIdleTimeout(),
            new McpTasks(engine, options.sessionClock()));
    McpSessions sessions =
        new McpSessions(
            options.sessionClock(), options.sessionIdleTimeout(), options.maxSessionsPerToken());
    transport.sweepWith(sessions::holds);
    servers.add(
        McpServer.async(transport)
            .serverInfo(SERVER_NAME, version())
            .instructions(INSTRUCTIONS)
            .capabilities(ServerCapabilities.builder().tools(false).build())
            .jsonMapper(jsonMapper)
            // The engine validates arguments itself and answers the HTTP API's problem document.
            .validateToolInputs(false)
            .tools(tools.specifications(McpService::callerIn))
            .addToolFilter(tools.visibleTo(McpService::callerIn))
            .build());
    McpGate gate =
        new McpGate(
            tokens,
            sessions,
            engine.tools(),
            listener,
            jsonMapper,
            transport.protocolVersions(),
            maxRequestBytes);
    return new Endpoint(gate, transport);
  }

  /**
   * The MCP endpoint's filter and servlet, container-neutral.
   *
   * @param gate authentication, sessions and bounds; a filter on the servlet's path
   * @param servlet the Streamable HTTP transport, which answers every JSON-RPC request with one
   *     {@code application/json} message
   */
  public record Endpoint(Filter gate, HttpServlet servlet) {
    public Endpoint {
      Objects.requireNonNull(gate, "gate");
      Objects.requireNonNull(servlet, "servlet");
    }
  }

  /**
   * Serves MCP over the given streams (normally stdin and stdout) for one principal: every call
   * acts as its tenant. Only the protocol is written to {@code out}.
   */
  public McpStdio serveStdio(Principal principal, InputStream in, OutputStream out) {
    McpStdio.EndOfInput input = new McpStdio.EndOfInput(in);
    StdioServerTransportProvider transport =
        new StdioServerTransportProvider(jsonMapper, input, out);
    McpCaller caller = McpCaller.withoutHeaders(principal);
    McpAsyncServer server =
        McpServer.async(transport)
            .serverInfo(SERVER_NAME, version())
            .instructions(INSTRUCTIONS)
            .capabilities(ServerCapabilities.builder().tools(false).build())
            .jsonMapper(jsonMapper)
            .validateToolInputs(false)
            .tools(tools.specifications(context -> Optional.of(caller)))
            .addToolFilter(tools.visibleTo(context -> Optional.of(caller)))
            .build();
    servers.add(server);
    return new McpStdio(this, input);
  }

  /**
   * Closes the MCP sessions, then waits up to the drain timeout for tool calls that the engine is
   * still running, so that each records its outcome.
   */
  @Override
  public void close() {
    List<McpAsyncServer> open;
    synchronized (servers) {
      open = List.copyOf(servers);
      servers.clear();
    }
    for (McpAsyncServer server : open) {
      try {
        server.closeGracefully().block(CLOSE_TIMEOUT);
      } catch (RuntimeException e) {
        LOG.debug("an MCP server did not close gracefully: {}", e.getMessage());
      }
    }
    tools.close();
  }

  private static McpTransportContext callerOf(HttpServletRequest request) {
    Object principal = request.getAttribute(McpGate.PRINCIPAL_ATTRIBUTE);
    if (!(principal instanceof Principal p)) {
      return McpTransportContext.EMPTY;
    }
    List<String> keys = Collections.list(request.getHeaders(McpConventions.IDEMPOTENCY_KEY_HEADER));
    // The transport extracts this on the request's own thread, where the correlation id is set.
    String requestId = MDC.get(RequestIds.MDC_KEY);
    return McpTransportContext.create(
        Map.of(McpCaller.CONTEXT_KEY, new McpCaller(p, keys, requestId)));
  }

  private static Optional<McpCaller> callerIn(McpTransportContext context) {
    return context.get(McpCaller.CONTEXT_KEY) instanceof McpCaller caller
        ? Optional.of(caller)
        : Optional.empty();
  }

  private static String version() {
    String version = McpService.class.getPackage().getImplementationVersion();
    return version == null ? "development" : version;
  }
}
