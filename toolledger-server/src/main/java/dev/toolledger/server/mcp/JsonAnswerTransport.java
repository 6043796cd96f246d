package dev.toolledger.server.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP transport behind {@link McpGate}: it answers every JSON-RPC request with
 * one {@code application/json} message, synchronously on the request's thread, which the MCP
 * specification allows in place of an SSE stream. The SDK's own servlet transport answers every
 * request as an SSE stream through {@code startAsync} and parses each message a second time from a
 * string; in a JFR profile of a ToolLedger node those two were about a fifth of its CPU per MCP
 * call (docs/benchmarks.md). Sessions, JSON-RPC dispatch and the tools are still the SDK's ({@link
 * McpStreamableServerSession}); only the HTTP side is ours.
 *
 * <p>It takes the message the gate parsed and checked (the request attribute {@link
 * McpGate#MESSAGE_ATTRIBUTE}) and binds that tree to the SDK's types, so a message is parsed once.
 * Outside the gate it answers {@code 500}. An error it meets is answered with an HTTP error status
 * and no body, which the gate replaces with its stable answer: {@code 404} for a session it does
 * not hold, {@code 503} once closing, {@code 500} otherwise.
 *
 * <p>What it does not do, and why that loses nothing here: it offers no standing {@code GET} stream
 * (the gate answers {@code 405}) and so sends nothing outside a request's answer; a notification a
 * tool would send during a call (progress, logging) is dropped, and a request to the client
 * (sampling, elicitation) fails at once. ToolLedger's tools send neither.
 */
final class JsonAnswerTransport extends HttpServlet
    implements McpStreamableServerTransportProvider {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(JsonAnswerTransport.class);

  /**
   * A session the SDK opened; {@code tasks} when it speaks MCP 2025-11-25, whose tasks this node
   * offers ({@link McpTasks}).
   */
  private record Held(McpStreamableServerSession session, Instant opened, boolean tasks) {}

  private final transient ObjectMapper objectMapper;
  private final transient McpJsonMapper jsonMapper;
  private final transient Function<HttpServletRequest, McpTransportContext> contexts;
  private final transient Clock clock;
  private final Duration sweepInterval;
  private final transient Map<String, Held> sessions = new ConcurrentHashMap<>();
  private final transient McpTasks tasks;
  private transient volatile McpStreamableServerSession.Factory sessionFactory;
  private transient volatile Disposable sweeper;
  private volatile boolean closing;

  JsonAnswerTransport(
      ObjectMapper objectMapper,
      McpJsonMapper jsonMapper,
      Function<HttpServletRequest, McpTransportContext> contexts,
      Clock clock,
      Duration sweepInterval,
      McpTasks tasks) {
    this.objectMapper = objectMapper;
    this.tasks = tasks;
    this.jsonMapper = jsonMapper;
    this.contexts = contexts;
    this.clock = clock;
    this.sweepInterval = sweepInterval;
  }

  /**
   * Frees, every sweep interval, the SDK's session objects whose session {@code open} no longer
   * holds (closed, or idled out) and that were opened at least one interval ago (so that one being
   * opened right now, not yet registered by the gate, is kept). With the idle timeout as the
   * interval, a session's objects are freed within two intervals of its last use.
   */
  void sweepWith(Predicate<String> open) {
    sweeper =
        Flux.interval(sweepInterval, sweepInterval)
            .subscribe(
                tick -> sweep(open),
                e -> LOG.warn("the MCP session sweeper stopped: {}", e.getMessage()));
  }

  /** One sweep; see {@link #sweepWith}. */
  void sweep(Predicate<String> open) {
    Instant settled = clock.instant().minus(sweepInterval);
    sessions.forEach(
        (id, held) -> {
          if (!held.opened().isAfter(settled) && !open.test(id) && sessions.remove(id, held)) {
            held.session().closeGracefully().subscribe(v -> {}, e -> {});
          }
        });
  }

  /** Keeps a session the SDK opened, until it is deleted or swept. */
  void hold(McpStreamableServerSession session) {
    hold(session, false);
  }

  private void hold(McpStreamableServerSession session, boolean tasks) {
    sessions.put(session.getId(), new Held(session, clock.instant(), tasks));
  }

  /** How many sessions the SDK holds for this transport. */
  int sessionCount() {
    return sessions.size();
  }

  /** Streamable HTTP's versions, the ones the SDK's servlet transport speaks. */
  @Override
  public List<String> protocolVersions() {
    return List.of(
        ProtocolVersions.MCP_2025_03_26,
        ProtocolVersions.MCP_2025_06_18,
        ProtocolVersions.MCP_2025_11_25);
  }

  @Override
  public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
    this.sessionFactory = sessionFactory;
  }

  @Override
  public Mono<Void> notifyClients(String method, Object params) {
    // There is no standing stream (the gate refuses GET), so nothing could carry a message sent
    // outside a request; the SDK's servlet would fail each session's send the same way.
    LOG.debug("dropped a notification to all MCP clients: no standing stream ({})", method);
    return Mono.empty();
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.defer(
        () -> {
          closing = true;
          Disposable running = sweeper;
          if (running != null) {
            running.dispose();
          }
          return Flux.fromIterable(sessions.values())
              .flatMap(held -> held.session().closeGracefully().onErrorResume(e -> Mono.empty()))
              .then(Mono.fromRunnable(sessions::clear));
        });
  }

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!(request.getAttribute(McpGate.MESSAGE_ATTRIBUTE) instanceof JsonNode message)) {
      LOG.error("an MCP request reached the transport without passing the gate");
      response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
      return;
    }
    if (closing) {
      response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
      return;
    }
    McpTransportContext context = contexts.apply(request);
    try {
      if (!message.has("method") || !message.has("id")) {
        // A notification, or a client's answer to a request of the server's (the gate checked
        // its shape): accepted by the session, answered 202 with no body.
        McpStreamableServerSession session = session(request, response);
        if (session != null) {
          Mono<Void> accepted =
              message.has("method")
                  ? session.accept(
                      objectMapper.treeToValue(message, McpSchema.JSONRPCNotification.class))
                  : session.accept(
                      objectMapper.treeToValue(message, McpSchema.JSONRPCResponse.class));
          accepted.contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context)).block();
          response.setStatus(HttpServletResponse.SC_ACCEPTED);
        }
      } else {
        McpSchema.JSONRPCRequest call =
            objectMapper.treeToValue(message, McpSchema.JSONRPCRequest.class);
        if (McpSchema.METHOD_INITIALIZE.equals(call.method())) {
          initialize(call, message.get("params"), response);
        } else {
          Held held = held(request, response);
          if (held != null) {
            if (held.tasks()) {
              answerWithTasks(
                  held.session(), call, message.get("params"), context, request, response);
            } else {
              answer(held.session(), call, context, response);
            }
          }
        }
      }
    } catch (JsonProcessingException e) {
      // The gate checked the message's shape; the SDK's types still refused it.
      LOG.warn("an MCP message that passed the gate does not bind: {}", e.getOriginalMessage());
      response.sendError(HttpServletResponse.SC_BAD_REQUEST);
    } catch (IOException e) {
      // The client went away while its answer was written; a tool call ran to its end anyway.
      LOG.debug("an MCP answer could not be written: {}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("the MCP transport failed on a message: {}", e.getMessage());
      if (!response.isCommitted()) {
        response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
      }
    }
  }

  @Override
  protected void doDelete(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (closing) {
      response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
      return;
    }
    String id = request.getHeader(McpGate.SESSION_HEADER);
    Held held = id == null ? null : sessions.remove(id);
    if (held == null) {
      response.sendError(HttpServletResponse.SC_NOT_FOUND);
      return;
    }
    held.session()
        .delete()
        .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, contexts.apply(request)))
        .block();
    response.setStatus(HttpServletResponse.SC_OK);
  }

  private void initialize(
      McpSchema.JSONRPCRequest call, JsonNode params, HttpServletResponse response)
      throws IOException {
    McpSchema.InitializeRequest initialize =
        objectMapper.treeToValue(params, McpSchema.InitializeRequest.class);
    McpStreamableServerSession.McpStreamableServerSessionInit init =
        sessionFactory.startSession(initialize);
    McpSchema.InitializeResult result = init.initResult().block();
    boolean withTasks = McpTasks.PROTOCOL_VERSION.equals(result.protocolVersion());
    hold(init.session(), withTasks);
    response.setHeader(McpGate.SESSION_HEADER, init.session().getId());
    if (withTasks) {
      // The SDK's ServerCapabilities has no tasks member; MCP 2025-11-25 has, and this node
      // serves tasks itself.
      ObjectNode answer = objectMapper.valueToTree(result);
      answer.withObjectProperty("capabilities").set("tasks", McpTasks.capability());
      write(response, McpSchema.JSONRPCResponse.result(call.id(), answer));
    } else {
      write(response, McpSchema.JSONRPCResponse.result(call.id(), result));
    }
  }

  /**
   * A request in a session of MCP 2025-11-25: the tasks methods are answered here, a {@code
   * tools/call} with a {@code task} gets a task, {@code tools/list} marks the write tools as
   * accepting tasks; the rest goes to the SDK as in any session.
   */
  private void answerWithTasks(
      McpStreamableServerSession session,
      McpSchema.JSONRPCRequest call,
      JsonNode params,
      McpTransportContext context,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    Principal principal =
        request.getAttribute(McpGate.PRINCIPAL_ATTRIBUTE) instanceof Principal p ? p : null;
    String method = call.method();
    boolean tasksMethod =
        McpTasks.GET.equals(method)
            || McpTasks.RESULT.equals(method)
            || McpTasks.LIST.equals(method);
    if (principal == null
        || !(tasksMethod
            || McpSchema.METHOD_TOOLS_LIST.equals(method)
            || (McpSchema.METHOD_TOOLS_CALL.equals(method)
                && McpTasks.requested(params)
                && !McpConventions.GET_OPERATION.equals(params.path("name").textValue())))) {
      answer(session, call, context, response);
      return;
    }
    if (tasksMethod) {
      write(response, tasksAnswer(principal, call, params));
      return;
    }
    McpSchema.JSONRPCResponse answered = sdkAnswer(session, call, context);
    if (answered.error() != null || answered.result() == null) {
      write(response, answered);
      return;
    }
    if (McpSchema.METHOD_TOOLS_LIST.equals(method)) {
      ObjectNode list = objectMapper.valueToTree(answered.result());
      for (JsonNode tool : list.path("tools")) {
        if (tool.path("_meta").has(McpConventions.OPERATION_KEY) && tool instanceof ObjectNode t) {
          t.putObject("execution").put("taskSupport", "optional");
        }
      }
      write(response, McpSchema.JSONRPCResponse.result(call.id(), list));
      return;
    }
    McpSchema.CallToolResult result =
        answered.result() instanceof McpSchema.CallToolResult r
            ? r
            : jsonMapper.convertValue(answered.result(), McpSchema.CallToolResult.class);
    write(
        response,
        McpSchema.JSONRPCResponse.result(
            call.id(), tasks.create(principal, params.path("name").textValue(), result)));
  }

  private McpSchema.JSONRPCResponse tasksAnswer(
      Principal principal, McpSchema.JSONRPCRequest call, JsonNode params) {
    JsonNode id = params == null ? null : params.get("taskId");
    if (McpTasks.LIST.equals(call.method())) {
      JsonNode cursor = params == null ? null : params.get("cursor");
      if (cursor != null && !cursor.isNull() && !cursor.isTextual()) {
        return invalidParams(call, "tasks/list params.cursor must be a string");
      }
      return McpSchema.JSONRPCResponse.result(
          call.id(), tasks.list(principal, cursor == null ? null : cursor.textValue()));
    }
    if (id == null || !id.isTextual()) {
      return invalidParams(call, call.method() + " needs params.taskId, a string");
    }
    Optional<?> found;
    if (McpTasks.GET.equals(call.method())) {
      found = tasks.get(principal, id.textValue());
    } else {
      try {
        found = tasks.result(principal, id.textValue());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for a task's result", e);
      }
    }
    if (found.isEmpty()) {
      // The same answer for an id never issued, expired, and another tenant's.
      return McpSchema.JSONRPCResponse.error(
          call.id(),
          new McpSchema.JSONRPCResponse.JSONRPCError(
              JsonRpcErrors.INVALID_PARAMS.code(),
              McpTasks.NOT_FOUND,
              Map.of("type", ProblemType.NOT_FOUND.uri().toString())));
    }
    return McpSchema.JSONRPCResponse.result(call.id(), found.get());
  }

  private static McpSchema.JSONRPCResponse invalidParams(
      McpSchema.JSONRPCRequest call, String message) {
    return McpSchema.JSONRPCResponse.error(
        call.id(),
        new McpSchema.JSONRPCResponse.JSONRPCError(
            JsonRpcErrors.INVALID_PARAMS.code(),
            message,
            Map.of("type", ProblemType.INVALID_PARAMETERS.uri().toString())));
  }

  private void answer(
      McpStreamableServerSession session,
      McpSchema.JSONRPCRequest call,
      McpTransportContext context,
      HttpServletResponse response)
      throws IOException {
    write(response, sdkAnswer(session, call, context));
  }

  // mcp-core 2.2 deprecates responseStream(request, transport), but it is still how the SDK answers
  // one request on a transport of the caller's; revisit when the SDK is upgraded.
  @SuppressWarnings("deprecation")
  private McpSchema.JSONRPCResponse sdkAnswer(
      McpStreamableServerSession session,
      McpSchema.JSONRPCRequest call,
      McpTransportContext context) {
    OneAnswer answer = new OneAnswer(jsonMapper);
    session
        .responseStream(call, answer)
        .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context))
        .block();
    if (answer.response == null) {
      // The SDK completes every request's stream with its response or an error response.
      throw new IllegalStateException("the MCP session completed a request without an answer");
    }
    return answer.response;
  }

  private McpStreamableServerSession session(
      HttpServletRequest request, HttpServletResponse response) throws IOException {
    Held held = held(request, response);
    return held == null ? null : held.session();
  }

  private Held held(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String id = request.getHeader(McpGate.SESSION_HEADER);
    Held held = id == null ? null : sessions.get(id);
    if (held == null) {
      // The gate knew the session but the SDK does not (swept, or from before a restart).
      response.sendError(HttpServletResponse.SC_NOT_FOUND);
      return null;
    }
    return held;
  }

  private void write(HttpServletResponse response, McpSchema.JSONRPCResponse message)
      throws IOException {
    byte[] bytes;
    try {
      bytes = objectMapper.writeValueAsBytes(message);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an MCP answer could not be serialized", e);
    }
    McpGate.write(response, HttpServletResponse.SC_OK, "application/json", bytes);
  }

  /**
   * The transport of one request's answer: it keeps the response and drops the rest, since a JSON
   * answer carries exactly one message.
   */
  private static final class OneAnswer implements McpStreamableServerTransport {
    private final McpJsonMapper jsonMapper;
    private volatile McpSchema.JSONRPCResponse response;

    OneAnswer(McpJsonMapper jsonMapper) {
      this.jsonMapper = jsonMapper;
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
      return sendMessage(message);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
      if (message instanceof McpSchema.JSONRPCResponse answer) {
        response = answer;
        return Mono.empty();
      }
      if (message instanceof McpSchema.JSONRPCRequest request) {
        return Mono.error(
            new IllegalStateException(
                "this MCP endpoint answers with JSON and cannot send the client a request ("
                    + request.method()
                    + ")"));
      }
      LOG.debug("dropped a notification sent during an MCP request: the answer is one message");
      return Mono.empty();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return jsonMapper.convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return Mono.empty();
    }

    @Override
    public void close() {}
  }
}
