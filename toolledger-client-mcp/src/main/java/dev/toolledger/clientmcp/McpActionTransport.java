package dev.toolledger.clientmcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.ActionTransport;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Implementation;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The agent-side client's {@link ActionTransport} over MCP: each attempt is exactly one {@code
 * tools/call} through the official MCP Java SDK client, with the journal's operation key in the
 * request's {@code _meta} as {@value #OPERATION_KEY}. Plug it into {@link
 * ToolLedgerClient.Builder#transport} and the journal, the retry policy and resume work unchanged:
 *
 * <pre>{@code
 * try (ActionJournal journal = ActionJournal.sqlite(Path.of("agent-journal.db"));
 *     McpActionTransport mcp =
 *         McpActionTransport.streamableHttp(
 *             URI.create("http://127.0.0.1:8080/mcp"), token, Duration.ofSeconds(10))) {
 *   ToolLedgerClient client =
 *       ToolLedgerClient.builder().journal(journal).retryPolicy(policy).transport(mcp).build();
 *   Outcome outcome = client.execute("chat-42", "step-7", "create-note", params);
 * }
 * }</pre>
 *
 * <p>{@link #streamableHttp} runs the SDK's client over {@link LeanStreamableHttpTransport} (each
 * exchange synchronous on the attempt's thread over a kept-alive HTTP/1.1 connection; no standing
 * GET stream, no stream resumption), or over the SDK's own {@code
 * HttpClientStreamableHttpTransport} with {@link HttpTransport#SDK}.
 *
 * <p>What it guarantees:
 *
 * <ul>
 *   <li>One attempt is one {@code tools/call} (for a lookup, one call of {@value #GET_OPERATION});
 *       it never retries, and the SDK client it drives does not resend a request either. The
 *       client's {@link dev.toolledger.client.retry.RetryPolicy} is the only retrying layer.
 *   <li>The key is sent unchanged in {@code _meta}, never in the tool's arguments, on every
 *       attempt; an action cannot be sent without one.
 *   <li>Answers are classified exactly as the HTTP transport classifies their HTTP counterparts
 *       (see {@code McpAnswers}): a result with {@value #REPLAYED} is {@link Outcome.Completed},
 *       "in progress", "busy", "tool unavailable", server errors and every transport failure or
 *       timeout are retried with the same key, "outcome unknown" is {@link Outcome.Unknown}, and
 *       refusals after which nothing happened are {@link Outcome.Rejected}.
 *   <li>An attempt takes no longer than the timeout it is given: the SDK call runs on this
 *       transport's own thread, and when the time is up the attempt ends as a retry while the call
 *       is left to finish or to hit the SDK client's own request timeout. It is not interrupted:
 *       cancelling a call of the SDK's sync client while it initializes the session leaves the
 *       client waiting for that initialization for good (mcp-core 2.2.0). A call left running may
 *       still reach the server and execute; it carries the same key, so the next attempt gets its
 *       recorded outcome.
 * </ul>
 *
 * <p>What it does not do: initialize eagerly (the SDK client initializes its session on the first
 * call, inside that attempt, and again after the server forgot the session), or log anything: the
 * client logs attempts by key hash, and the reasons this transport gives name exception classes and
 * protocol codes only (SDK exception messages can quote URLs, sessions and response bodies). Keep
 * the SDK's own loggers ({@code io.modelcontextprotocol}) at {@code INFO} or above: at {@code
 * DEBUG} they print whole JSON-RPC messages, keys, arguments and results included.
 *
 * <p>Thread-safe: concurrent attempts share the SDK client and its session.
 */
public final class McpActionTransport implements ActionTransport, AutoCloseable {
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  /**
   * In a {@code tools/call} request's {@code _meta}: the operation key. In a result's {@code
   * _meta}: the key the outcome is recorded under.
   */
  public static final String OPERATION_KEY = "dev.toolledger/operation-key";

  /** In a result's {@code _meta}: present on every recorded outcome, true when replayed. */
  public static final String REPLAYED = "dev.toolledger/replayed";

  /** In a result's {@code _meta}: the operation's state. */
  public static final String STATE = "dev.toolledger/state";

  /** In a result's {@code _meta}: the HTTP-style status the tool recorded. */
  public static final String STATUS = "dev.toolledger/status";

  /** In an error result's {@code _meta}: the RFC 9457 problem type URI. */
  public static final String PROBLEM_TYPE = "dev.toolledger/problem-type";

  /** In an error result's {@code _meta}: seconds to wait before calling again with the same key. */
  public static final String RETRY_AFTER_SECONDS = "dev.toolledger/retry-after-seconds";

  /** The server's read tool that looks an operation up by its key. */
  public static final String GET_OPERATION = "get-operation";

  /** Connect timeout of the HTTP client that {@link #streamableHttp} builds: 5 seconds at most. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private static final String CLIENT_NAME = "toolledger-client-mcp";

  private final McpSyncClient client;
  private final boolean ownsClient;
  private final ExecutorService calls;

  private McpActionTransport(McpSyncClient client, boolean ownsClient) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.calls = Executors.newCachedThreadPool(new CallThreads());
  }

  /**
   * A transport over an SDK client the caller built (and may have initialized already). The caller
   * keeps it: {@link #close()} does not close it. The client must not retry requests by itself (the
   * SDK's clients do not), and its request timeout should be at least the attempt timeout of the
   * {@link ToolLedgerClient} (each attempt is cut at the shorter of the two).
   */
  public static McpActionTransport over(McpSyncClient client) {
    return new McpActionTransport(Objects.requireNonNull(client, "client"), false);
  }

  /**
   * A transport with its own SDK client for a ToolLedger MCP endpoint over Streamable HTTP, sending
   * {@code Authorization: Bearer token} with every request. Nothing is sent until the first
   * attempt, which also initializes the MCP session. {@link #close()} closes the client (and
   * deletes the session). The SDK client runs over {@link LeanStreamableHttpTransport} ({@link
   * HttpTransport#LEAN}); the SDK's own transport is {@link #streamableHttp(URI, String, Duration,
   * HttpTransport)} with {@link HttpTransport#SDK}.
   *
   * @param endpoint the MCP endpoint, for example {@code http://127.0.0.1:8080/mcp}
   * @param token the bearer token ({@code tl_...}); never logged
   * @param timeout the SDK client's request and initialization timeout: the longest any one MCP
   *     request may take. Each attempt is further cut at the {@link ToolLedgerClient}'s attempt
   *     timeout; keep this one at least as long.
   * @throws IllegalArgumentException when an argument is unusable; the message names it
   */
  public static McpActionTransport streamableHttp(URI endpoint, String token, Duration timeout) {
    return streamableHttp(endpoint, token, timeout, HttpTransport.LEAN);
  }

  /**
   * As {@link #streamableHttp(URI, String, Duration)}, with the SDK client's HTTP transport chosen:
   * {@link HttpTransport#LEAN} (the default) or the SDK's own {@link HttpTransport#SDK}.
   */
  public static McpActionTransport streamableHttp(
      URI endpoint, String token, Duration timeout, HttpTransport http) {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(http, "http");
    McpEndpoints.requireHttpWithoutQuery(endpoint);
    String path = endpoint.getRawPath();
    if (path == null || path.isEmpty() || path.equals("/")) {
      throw new IllegalArgumentException(
          "endpoint must name the MCP path, for example http://127.0.0.1:8080/mcp");
    }
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("token is required");
    }
    if (token.chars().anyMatch(c -> c < 0x21 || c > 0x7E)) {
      throw new IllegalArgumentException("token must be visible ASCII without spaces");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive");
    }
    String authorization = "Bearer " + token;
    Duration connectTimeout =
        timeout.compareTo(DEFAULT_CONNECT_TIMEOUT) < 0 ? timeout : DEFAULT_CONNECT_TIMEOUT;
    McpClientTransport transport =
        switch (http) {
          case LEAN ->
              LeanStreamableHttpTransport.builder(endpoint)
                  .header("Authorization", authorization)
                  .connectTimeout(connectTimeout)
                  // The SDK's request timeout cannot stop a read on this transport: the socket's
                  // read timeout bounds each exchange instead.
                  .readTimeout(timeout)
                  .build();
          case SDK ->
              HttpClientStreamableHttpTransport.builder(
                      endpoint.getScheme() + "://" + endpoint.getRawAuthority())
                  .endpoint(path)
                  .jsonMapper(new JacksonMcpJsonMapperSupplier().get())
                  .clientBuilder(
                      HttpClient.newBuilder()
                          .version(HttpClient.Version.HTTP_1_1)
                          .followRedirects(HttpClient.Redirect.NEVER))
                  .connectTimeout(connectTimeout)
                  .addHttpRequestCustomizer(
                      (request, method, uri, body, context) ->
                          request.header("Authorization", authorization))
                  .build();
        };
    McpSyncClient client =
        McpClient.sync(transport)
            .clientInfo(Implementation.builder(CLIENT_NAME, version()).build())
            .requestTimeout(timeout)
            .initializationTimeout(timeout)
            .build();
    return new McpActionTransport(client, true);
  }

  /** The HTTP transport under the SDK client that {@link #streamableHttp} builds. */
  public enum HttpTransport {
    /**
     * {@link LeanStreamableHttpTransport}: each exchange synchronous on the calling thread over a
     * kept-alive HTTP/1.1 connection; no standing GET stream, no stream resumption. The default.
     */
    LEAN,
    /**
     * The SDK's own {@code HttpClientStreamableHttpTransport} over the JDK {@code HttpClient}
     * (HTTP/1.1, no redirects): the GET stream and resumption, at more CPU per call (see
     * docs/benchmarks.md, "Where MCP's time goes").
     */
    SDK
  }

  /**
   * One {@code tools/call} of {@code action.tool()} with the action's parameters as arguments and
   * {@code key} in {@code _meta}. Parameters that are not a JSON object cannot be MCP arguments:
   * such an action is {@link Outcome.Rejected} with {@code invalid-parameters}, and nothing is
   * sent.
   */
  @Override
  public AttemptResult<Outcome> send(OperationKey key, Action action, Duration timeout) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(action, "action");
    JsonNode parameters = action.parameters();
    if (!parameters.isObject()) {
      return AttemptResult.done(
          new Outcome.Rejected(
              key,
              ProblemDetails.of(
                  ProblemType.INVALID_PARAMETERS,
                  "MCP tool arguments are a JSON object; these parameters are a JSON "
                      + parameters.getNodeType().name().toLowerCase(Locale.ROOT)
                      + ", so nothing was sent")));
    }
    CallToolRequest request =
        CallToolRequest.builder(action.tool())
            .arguments(Json.mapper().convertValue(parameters, MAP))
            .meta(keyMeta(key))
            .build();
    return attempt(
        () -> client.callTool(request),
        timeout,
        result -> McpAnswers.tool(key, result),
        failure -> McpAnswers.toolFailure(key, action.tool(), failure));
  }

  /** One call of {@value #GET_OPERATION} with {@code {"key": key}}. */
  @Override
  public AttemptResult<LookupResult> lookup(OperationKey key, Duration timeout) {
    Objects.requireNonNull(key, "key");
    CallToolRequest request =
        CallToolRequest.builder(GET_OPERATION).arguments(Map.of("key", key.value())).build();
    return attempt(
        () -> client.callTool(request),
        timeout,
        result -> McpAnswers.lookup(key, result),
        failure -> McpAnswers.lookupFailure(key, failure));
  }

  /**
   * Stops taking attempts and closes the SDK client if {@link #streamableHttp} built it, which ends
   * the calls still running. Calls over a client passed to {@link #over} end with their answer or
   * with that client's request timeout.
   */
  @Override
  public void close() {
    calls.shutdown();
    if (ownsClient) {
      if (!client.closeGracefully()) {
        client.close();
      }
    }
  }

  private static Map<String, Object> keyMeta(OperationKey key) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(OPERATION_KEY, key.value());
    return meta;
  }

  /**
   * Runs one blocking SDK call on this transport's thread and waits at most {@code timeout}. On
   * time-out the call is left running, never interrupted (see the class comment): it ends with its
   * answer or with the SDK's request timeout, and its result is dropped.
   */
  private <T> AttemptResult<T> attempt(
      Supplier<CallToolResult> call,
      Duration timeout,
      Function<CallToolResult, AttemptResult<T>> answer,
      Function<Throwable, AttemptResult<T>> failure) {
    Future<CallToolResult> future;
    try {
      future = calls.submit(call::get);
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException("the MCP transport is closed", e);
    }
    long millis = Math.max(1, timeout.toMillis());
    try {
      CallToolResult result = future.get(millis, TimeUnit.MILLISECONDS);
      if (result == null) {
        return AttemptResult.retry("the MCP client returned no result");
      }
      return answer.apply(result);
    } catch (TimeoutException e) {
      return AttemptResult.retry("no answer within " + millis + " ms");
    } catch (ExecutionException e) {
      return failure.apply(e.getCause() == null ? e : e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return AttemptResult.retry("interrupted while waiting for the answer");
    }
  }

  private static String version() {
    String version = McpActionTransport.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }

  private static final class CallThreads implements ThreadFactory {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, "toolledger-mcp-call-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    }
  }
}
