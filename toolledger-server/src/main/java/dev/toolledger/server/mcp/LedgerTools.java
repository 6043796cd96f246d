package dev.toolledger.server.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.schema.ParameterSchema;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.answer.Answer;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.answer.Channel;
import dev.toolledger.server.answer.Failures;
import dev.toolledger.server.answer.Rejections;
import dev.toolledger.server.mcp.OperationKeys.Resolution;
import dev.toolledger.server.observe.RequestIds;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncListFilter;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import reactor.core.publisher.Mono;

/**
 * The engine's tools as MCP tool specifications, plus {@code get-operation}.
 *
 * <p>Every engine call runs on this class's own threads, never on a thread that the transport or
 * Reactor owns. The handler's {@code Mono} only waits for that work: when a client disconnects,
 * when its request stream closes or when the subscription is cancelled for any other reason, the
 * waiting stops, but the engine call runs on to the end of its transaction and records its outcome,
 * which a retry with the same key then replays. Nothing here ever interrupts those threads; {@link
 * #close()} waits for them.
 */
final class LedgerTools implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerTools.class);
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  /** Success bodies of ledger tools are JSON objects (or wrapped into one). */
  private static final Map<String, Object> OBJECT_SCHEMA = Map.of("type", "object");

  private static final JsonNode GET_OPERATION_INPUT =
      Json.parse(
          "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"key\"],"
              + "\"properties\":{\"key\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":255,"
              + "\"description\":\"The operation key the action was sent with.\"}}}");

  private static final JsonNode GET_OPERATION_OUTPUT =
      Json.parse(
          "{\"type\":\"object\",\"required\":[\"key\",\"state\"],\"properties\":{"
              + "\"key\":{\"type\":\"string\"},"
              + "\"tool\":{\"type\":[\"string\",\"null\"]},"
              + "\"toolVersion\":{\"type\":[\"string\",\"null\"]},"
              + "\"state\":{\"enum\":[\"IN_PROGRESS\",\"COMPLETED\",\"NOT_EXECUTED\",\"UNKNOWN\"]},"
              + "\"createdAt\":{\"type\":\"string\"},"
              + "\"completedAt\":{\"type\":[\"string\",\"null\"]},"
              + "\"expiresAt\":{\"type\":[\"string\",\"null\"]},"
              + "\"response\":{\"type\":[\"object\",\"null\"]}}}");

  /** The logging context's key for the transport of an engine call made over MCP. */
  static final String TRANSPORT_MDC_KEY = "transport";

  private static final ParameterSchema GET_OPERATION_SCHEMA =
      ParameterSchema.compile(GET_OPERATION_INPUT);

  private final LedgerEngine engine;
  private final McpOptions options;
  private final ThreadPoolExecutor executor;
  private final Rejections rejections;

  LedgerTools(LedgerEngine engine, McpOptions options) {
    this.engine = engine;
    this.options = options;
    this.rejections = new Rejections(LOG, engine.listener(), "mcp");
    for (String name : options.allowUnkeyed()) {
      if (engine.tools().find(name).isEmpty()) {
        throw new IllegalArgumentException("allowUnkeyed: no tool is named " + name);
      }
    }
    if (engine.tools().find(McpConventions.GET_OPERATION).isPresent()) {
      throw new IllegalArgumentException(
          "a tool is named "
              + McpConventions.GET_OPERATION
              + ", which the MCP server reserves for operation lookups");
    }
    this.executor =
        new ThreadPoolExecutor(
            options.engineThreads(),
            options.engineThreads(),
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            new EngineThreads());
    this.executor.allowCoreThreadTimeOut(true);
  }

  /**
   * The tool specifications, each reading its caller with {@code callers} from the transport
   * context.
   */
  List<AsyncToolSpecification> specifications(
      Function<McpTransportContext, Optional<McpCaller>> callers) {
    List<AsyncToolSpecification> specs = new ArrayList<>();
    for (RegisteredTool tool : engine.tools().all()) {
      boolean unkeyed = options.allowsUnkeyed(tool.descriptor().name());
      specs.add(
          new AsyncToolSpecification(
              writeTool(tool.descriptor(), unkeyed, tool.tool() instanceof ExternalTool),
              (exchange, request) -> callWrite(tool, unkeyed, callers, exchange, request)));
    }
    specs.add(
        new AsyncToolSpecification(
            getOperationTool(), (exchange, request) -> getOperation(callers, exchange, request)));
    return specs;
  }

  /**
   * Shows each caller only the tools it may call ({@code tools/list}); {@code get-operation} only
   * to callers with {@code read}. Calling a hidden tool is refused all the same.
   */
  McpAsyncListFilter<Tool> visibleTo(Function<McpTransportContext, Optional<McpCaller>> callers) {
    return (context, tool) ->
        Mono.just(
            callers
                .apply(context)
                .map(McpCaller::principal)
                .map(
                    principal ->
                        tool.name().equals(McpConventions.GET_OPERATION)
                            ? principal.mayRead()
                            : principal.mayCall(tool.name()))
                .orElse(false));
  }

  private static Tool writeTool(ToolDescriptor descriptor, boolean unkeyed, boolean external) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpConventions.OPERATION_KEY, unkeyed ? "optional" : "required");
    meta.put(McpConventions.TOOL_VERSION, descriptor.version());
    return Tool.builder(
            descriptor.name(), Json.mapper().convertValue(descriptor.inputSchema(), MAP))
        .description(descriptor.description())
        .outputSchema(OBJECT_SCHEMA)
        // A keyed call is idempotent: repeating it with the same key has no further effect. An
        // unkeyed call gets a fresh key every time, so repeating it repeats the effect. A tool
        // whose effect happens in another system (an ExternalTool) reaches an open world.
        .annotations(new ToolAnnotations(null, false, false, !unkeyed, external, null))
        .meta(meta)
        .build();
  }

  private static Tool getOperationTool() {
    return Tool.builder(
            McpConventions.GET_OPERATION, Json.mapper().convertValue(GET_OPERATION_INPUT, MAP))
        .description(
            "Looks up an operation by its key: its state (IN_PROGRESS, COMPLETED, NOT_EXECUTED,"
                + " UNKNOWN) and, once completed, the recorded response. Only operations of the"
                + " caller's own tenant are found.")
        .outputSchema(Json.mapper().convertValue(GET_OPERATION_OUTPUT, MAP))
        .annotations(new ToolAnnotations(null, true, false, true, false, null))
        .build();
  }

  private Mono<CallToolResult> callWrite(
      RegisteredTool tool,
      boolean unkeyed,
      Function<McpTransportContext, Optional<McpCaller>> callers,
      McpAsyncServerExchange exchange,
      CallToolRequest request) {
    long started = System.nanoTime();
    String name = tool.descriptor().name();
    Optional<McpCaller> caller = callers.apply(exchange.transportContext());
    if (caller.isEmpty()) {
      return Mono.just(unauthenticated());
    }
    // Before the key: a replay needs the tool's scope as much as a first call does.
    if (!caller.get().principal().mayCall(name)) {
      // Over Streamable HTTP the gate answers this first, for names of tools and of no tool alike.
      return Mono.just(
          refuse(caller.get(), name, started, Answers.mayNotCall(caller.get().principal(), name)));
    }
    Resolution resolution =
        OperationKeys.resolve(request.meta(), caller.get().idempotencyKeyHeaders(), unkeyed);
    if (resolution instanceof Resolution.Missing) {
      return Mono.just(
          refuse(
              caller.get(),
              name,
              started,
              Answer.Refused.of(
                  Problem.of(
                      ProblemType.MISSING_KEY,
                      "this tool needs an operation key, and it is not a tool argument: the"
                          + " client (the execution layer, never the model) sends it in the"
                          + " request's _meta as \""
                          + McpConventions.OPERATION_KEY
                          + "\" (or, over Streamable HTTP, in the "
                          + McpConventions.IDEMPOTENCY_KEY_HEADER
                          + " header): the same key on every retry of one action, a new key for"
                          + " every new action"))));
    }
    if (resolution instanceof Resolution.Invalid invalid) {
      return Mono.just(refuse(caller.get(), name, started, Answers.invalidKey(invalid.reason())));
    }
    OperationKey key = ((Resolution.Resolved) resolution).key();
    Invocation invocation =
        Invocation.of(caller.get().principal().tenant(), key, name, arguments(request));
    return onEngine(name, caller.get(), () -> McpResults.of(engine.execute(invocation), key));
  }

  private Mono<CallToolResult> getOperation(
      Function<McpTransportContext, Optional<McpCaller>> callers,
      McpAsyncServerExchange exchange,
      CallToolRequest request) {
    Optional<McpCaller> caller = callers.apply(exchange.transportContext());
    if (caller.isEmpty()) {
      return Mono.just(unauthenticated());
    }
    if (!caller.get().principal().mayRead()) {
      return Mono.just(
          McpResults.problem(
              Problem.of(
                  ProblemType.FORBIDDEN,
                  "this token may not look operations up: it needs the read scope (its scopes: "
                      + caller.get().principal().scopes()
                      + ")")));
    }
    Validation validation = GET_OPERATION_SCHEMA.validate(arguments(request));
    if (validation instanceof Validation.Invalid invalid) {
      return Mono.just(
          McpResults.of(Answers.invalidParameters(invalid.violations(), Channel.MCP), null));
    }
    OperationKey key;
    try {
      key = OperationKey.of(((Validation.Valid) validation).parameters().get("key").textValue());
    } catch (InvalidOperationKeyException e) {
      return Mono.just(McpResults.of(Answers.invalidKey(e.getMessage()), null));
    }
    return onEngine(
        McpConventions.GET_OPERATION,
        caller.get(),
        () -> McpResults.of(Answers.lookup(engine, caller.get().principal().tenant(), key), null));
  }

  /**
   * Runs {@code work} on an engine thread and waits for it without owning it: cancelling the
   * returned {@code Mono} stops the waiting only ({@code suppressCancel}), and the thread belongs
   * to this class, so nothing in the transport can interrupt it.
   */
  private Mono<CallToolResult> onEngine(
      String tool, McpCaller caller, Supplier<CallToolResult> work) {
    // The engine thread logs under the request's correlation id (a new one per call on stdio).
    String requestId = caller.requestId() != null ? caller.requestId() : RequestIds.newId();
    CompletableFuture<CallToolResult> future;
    try {
      future =
          CompletableFuture.supplyAsync(
              () -> {
                MDC.put(RequestIds.MDC_KEY, requestId);
                MDC.put(TRANSPORT_MDC_KEY, "mcp");
                try {
                  return guarded(tool, work);
                } finally {
                  MDC.remove(RequestIds.MDC_KEY);
                  MDC.remove(TRANSPORT_MDC_KEY);
                }
              },
              executor);
    } catch (RejectedExecutionException e) {
      return Mono.just(
          McpResults.problem(
              Problem.of(
                  ProblemType.STORE_BUSY,
                  "the server is stopping and nothing was recorded; call again with the same"
                      + " key"),
              null,
              null,
              engine.config().retryAfter()));
    }
    return Mono.fromFuture(future, true);
  }

  private static CallToolResult guarded(String tool, Supplier<CallToolResult> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      return McpResults.of(Failures.answer(LOG, e, Channel.MCP, tool, "in an MCP tool"), null);
    }
  }

  private static JsonNode arguments(CallToolRequest request) {
    return request.arguments() == null
        ? Json.object()
        : Json.mapper().valueToTree(request.arguments());
  }

  private static CallToolResult unauthenticated() {
    return McpResults.problem(
        Problem.of(ProblemType.UNAUTHORIZED, "this request carries no authenticated caller"));
  }

  /** Counts the refusal of a call before the engine, as the HTTP API does, and frames it. */
  private CallToolResult refuse(
      McpCaller caller, String tool, long startedNanos, Answer.Refused refusal) {
    rejections.count(caller.principal(), tool, refusal.problem().type(), startedNanos);
    return McpResults.of(refusal, null);
  }

  /**
   * Stops taking calls and waits up to the drain timeout for the running ones to record their
   * outcome. Never interrupts them.
   */
  @Override
  public void close() {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(options.drainTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "{} MCP tool calls still running after {}; they finish on their own threads",
            executor.getActiveCount() + executor.getQueue().size(),
            options.drainTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class EngineThreads implements ThreadFactory {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, "toolledger-mcp-engine-" + count.incrementAndGet());
      thread.setDaemon(false);
      return thread;
    }
  }
}
