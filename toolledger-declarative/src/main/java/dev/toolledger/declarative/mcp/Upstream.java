package dev.toolledger.declarative.mcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Implementation;
import io.modelcontextprotocol.spec.McpSchema.ListToolsResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The connection to one upstream MCP server, shared by the calls of one tool: a running program
 * over stdio, or a session over Streamable HTTP, through the official SDK's client.
 *
 * <p>Before every call the session is checked with a {@code ping} (at most {@link #PING_TIMEOUT});
 * a session that does not answer, a program that died, or an HTTP session the server forgot (a
 * restart) is dropped and a new one is made (the program started again, a new session initialized).
 * All of that happens before the call is sent, so a failure there means that nothing was sent
 * ({@link NothingSent}). Once the call is sent, any failure other than a JSON-RPC refusal is {@link
 * UncertainCall}; the session is then closed (a stdio program is stopped, so that nothing it still
 * holds can complete later) and the next call starts afresh.
 *
 * <p>Messages never quote the SDK's exception messages, which can carry URLs, headers or bodies:
 * only exception class names and JSON-RPC codes.
 */
final class Upstream implements AutoCloseable {
  /**
   * The longest wait for the check of an open session before a call (or the timeout if shorter).
   */
  static final Duration PING_TIMEOUT = Duration.ofSeconds(5);

  /** How long a stopped program may take to exit before it is killed. */
  static final Duration STOP_GRACE = Duration.ofSeconds(2);

  private static final String CLIENT_NAME = "toolledger-mcp-tool";

  /** JSON-RPC errors after which the server certainly did not run the tool. */
  private static final Set<Integer> NOT_RUN = Set.of(-32700, -32600, -32601);

  /** JSON-RPC "invalid params": the tool refused the arguments (or does not exist). */
  static final int INVALID_PARAMS = -32602;

  /** How to reach the server: a new SDK transport per session. */
  sealed interface Endpoint {
    McpClientTransport transport(McpJsonMapper json);

    /** What may be shown of it: the program's name, or the URL's scheme, host and port. */
    String describe();
  }

  /** A program started with {@code command}, talking MCP over its standard input and output. */
  record Stdio(List<String> command, Map<String, String> env) implements Endpoint {
    Stdio {
      command = List.copyOf(command);
      env = Map.copyOf(env);
    }

    @Override
    public McpClientTransport transport(McpJsonMapper json) {
      ServerParameters parameters =
          ServerParameters.builder(command.get(0))
              .args(command.subList(1, command.size()))
              .env(env)
              .build();
      StdioClientTransport transport = new StdioClientTransport(parameters, json);
      // The program's standard error is not ToolLedger's to log: it may print anything, its
      // credentials included.
      transport.setStdErrorHandler(line -> {});
      return transport;
    }

    @Override
    public String describe() {
      String program = command.get(0);
      int slash = Math.max(program.lastIndexOf('/'), program.lastIndexOf('\\'));
      return "stdio " + program.substring(slash + 1);
    }

    @Override
    public String toString() {
      return "Stdio[" + describe() + "]";
    }
  }

  /** A Streamable HTTP endpoint, with headers sent on every request. */
  record StreamableHttp(URI url, Map<String, String> headers, Duration connectTimeout)
      implements Endpoint {
    StreamableHttp {
      headers = Map.copyOf(headers);
    }

    @Override
    public McpClientTransport transport(McpJsonMapper json) {
      String base = url.getScheme() + "://" + url.getRawAuthority();
      String path = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
      return HttpClientStreamableHttpTransport.builder(base)
          .endpoint(path)
          .jsonMapper(json)
          .clientBuilder(
              HttpClient.newBuilder()
                  .version(HttpClient.Version.HTTP_1_1)
                  .followRedirects(HttpClient.Redirect.NEVER))
          .connectTimeout(connectTimeout)
          .openConnectionOnStartup(false)
          .addHttpRequestCustomizer(
              (request, method, uri, body, context) -> headers.forEach(request::header))
          .build();
    }

    @Override
    public String describe() {
      return url.getScheme() + "://" + url.getRawAuthority();
    }

    @Override
    public String toString() {
      return "StreamableHttp[" + describe() + ", headers " + headers.keySet() + "]";
    }
  }

  /** Nothing was sent: the server could not be reached, started or initialized. */
  static final class NothingSent extends Exception {
    private static final long serialVersionUID = 1L;

    NothingSent(String message) {
      super(message);
    }
  }

  /** The server answered the call with a JSON-RPC error. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int code;
    private final String upstreamMessage;

    Refused(int code, String upstreamMessage) {
      super("the upstream refused the request with JSON-RPC error " + code);
      this.code = code;
      this.upstreamMessage = upstreamMessage == null ? "" : upstreamMessage;
    }

    int code() {
      return code;
    }

    /** Whether the server certainly did not run the tool (parse error, invalid request...). */
    boolean notRun() {
      return NOT_RUN.contains(code);
    }

    String upstreamMessage() {
      return upstreamMessage;
    }
  }

  /** The call was sent and then failed: the upstream may or may not have performed it. */
  static final class UncertainCall extends Exception {
    private static final long serialVersionUID = 1L;

    UncertainCall(String message) {
      super(message);
    }
  }

  private final Endpoint endpoint;
  private final Duration timeout;
  private final Duration startTimeout;
  private final McpJsonMapper json = new JacksonMcpJsonMapperSupplier().get();
  private final Object lock = new Object();
  private McpAsyncClient client;

  /** The program of the current stdio session, when it could be told apart. */
  private Optional<ProcessHandle> program = Optional.empty();

  private boolean closed;

  Upstream(Endpoint endpoint, Duration timeout, Duration startTimeout) {
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
  }

  Endpoint endpoint() {
    return endpoint;
  }

  /**
   * Calls {@code request} once: its result (an {@code isError} result included).
   *
   * @param sendBy {@link System#nanoTime()} after which the call is not sent any more (the session
   *     took too long to be ready): {@link NothingSent}
   */
  CallToolResult call(CallToolRequest request, long sendBy)
      throws NothingSent, Refused, UncertainCall {
    McpAsyncClient session = ready();
    if (System.nanoTime() - sendBy > 0) {
      throw new NothingSent(
          "the upstream took too long to be ready; nothing was sent, as too little of the lease"
              + " was left for the call");
    }
    try {
      return Objects.requireNonNull(session.callTool(request).block(timeout), "no result");
    } catch (RuntimeException e) {
      Optional<McpError> error = find(e, McpError.class);
      if (error.isPresent() && error.get().getJsonRpcError() != null) {
        Integer code = error.get().getJsonRpcError().code();
        if (code != null && (NOT_RUN.contains(code) || code == INVALID_PARAMS)) {
          throw new Refused(code, error.get().getJsonRpcError().message());
        }
      }
      if (find(e, McpTransportSessionNotFoundException.class).isPresent()) {
        // The server no longer knows the session (it restarted) and answered 404 before reading
        // the call: nothing ran. One new session, one more try.
        drop(session);
        session = ready();
        if (System.nanoTime() - sendBy > 0) {
          throw new NothingSent(
              "the upstream's session ended and a new one took too long; nothing was run");
        }
        try {
          return Objects.requireNonNull(session.callTool(request).block(timeout), "no result");
        } catch (RuntimeException again) {
          drop(session);
          throw new UncertainCall("the call was sent and got no answer (" + describe(again) + ")");
        }
      }
      if (find(e, McpHttpClientTransportAuthorizationException.class).isPresent()) {
        drop(session);
        throw new NothingSent("the upstream refused the credentials (401 or 403)");
      }
      drop(session);
      throw new UncertainCall("the call was sent and got no answer (" + describe(e) + ")");
    }
  }

  /** Every tool the server lists, following its pages. */
  List<Tool> listTools() throws NothingSent, UncertainCall {
    McpAsyncClient session = ready();
    List<Tool> tools = new ArrayList<>();
    String cursor = null;
    try {
      for (int page = 0; page < 100; page++) {
        ListToolsResult result =
            cursor == null
                ? session.listTools().block(timeout)
                : session.listTools(cursor).block(timeout);
        if (result == null) {
          break;
        }
        tools.addAll(result.tools());
        cursor = result.nextCursor();
        if (cursor == null || cursor.isEmpty()) {
          break;
        }
      }
    } catch (RuntimeException e) {
      drop(session);
      throw new UncertainCall("tools/list got no answer (" + describe(e) + ")");
    }
    return tools;
  }

  /** Makes sure a session is open (the program running), without calling anything. */
  void connect() throws NothingSent {
    ready();
  }

  /** A checked session: the open one if it answers a ping, else a new one. */
  private McpAsyncClient ready() throws NothingSent {
    McpAsyncClient current;
    synchronized (lock) {
      if (closed) {
        throw new NothingSent("the tool is closed");
      }
      current = client;
    }
    if (current != null) {
      try {
        current.ping().block(PING_TIMEOUT.compareTo(timeout) < 0 ? PING_TIMEOUT : timeout);
        return current;
      } catch (RuntimeException e) {
        drop(current);
      }
    }
    synchronized (lock) {
      if (closed) {
        throw new NothingSent("the tool is closed");
      }
      if (client != null && client != current) {
        return client; // another call connected meanwhile
      }
      McpAsyncClient made =
          McpClient.async(endpoint.transport(json))
              .clientInfo(Implementation.builder(CLIENT_NAME, "1").build())
              // The SDK bounds the initialize request by its request timeout too: give it the
              // longer of the two, and bound each call by blocking at most the call's timeout.
              .requestTimeout(startTimeout.compareTo(timeout) > 0 ? startTimeout : timeout)
              .initializationTimeout(startTimeout)
              .build();
      Set<Long> before = endpoint instanceof Stdio ? children() : Set.of();
      try {
        if (endpoint instanceof Stdio) {
          // One start at a time in this JVM, so that the new child process is this session's.
          synchronized (Upstream.class) {
            made.initialize().block(startTimeout.plusMillis(500));
            List<ProcessHandle> started =
                ProcessHandle.current()
                    .children()
                    .filter(child -> !before.contains(child.pid()))
                    .toList();
            program = started.size() == 1 ? Optional.of(started.get(0)) : Optional.empty();
          }
          program.ifPresent(process -> dropWhenItExits(process, made));
        } else {
          made.initialize().block(startTimeout.plusMillis(500));
        }
      } catch (RuntimeException e) {
        quietlyClose(made, Optional.empty());
        if (find(e, McpHttpClientTransportAuthorizationException.class).isPresent()) {
          throw new NothingSent(
              "the upstream ("
                  + endpoint.describe()
                  + ") refused the credentials (401 or 403); nothing was sent");
        }
        throw new NothingSent(
            "the upstream ("
                + endpoint.describe()
                + ") could not be "
                + (endpoint instanceof Stdio ? "started" : "reached")
                + " or initialized ("
                + describe(e)
                + "); nothing was sent");
      }
      client = made; // just initialized: no ping needed
      return made;
    }
  }

  /** Closes {@code session} if it is still the current one (a stdio program is stopped). */
  /**
   * A program that dies ends its session at once: the calls in flight end uncertain now rather than
   * at their timeout, and the next call starts it again.
   */
  // Nothing reads the future: drop() closes quietly, so the future can hold no failure.
  @SuppressWarnings("FutureReturnValueIgnored")
  private void dropWhenItExits(ProcessHandle process, McpAsyncClient made) {
    process.onExit().thenRun(() -> drop(made));
  }

  void drop(McpAsyncClient session) {
    Optional<ProcessHandle> stopped = Optional.empty();
    synchronized (lock) {
      if (client == session) {
        client = null;
        stopped = program;
        program = Optional.empty();
      }
    }
    quietlyClose(session, stopped);
  }

  /** Stops the program or ends the session; calls in flight end as uncertain. */
  @Override
  public void close() {
    McpAsyncClient current;
    Optional<ProcessHandle> stopped;
    synchronized (lock) {
      closed = true;
      current = client;
      stopped = program;
      client = null;
      program = Optional.empty();
    }
    if (current != null) {
      quietlyClose(current, stopped);
    }
  }

  /**
   * Closes the session; a stdio program is then waited for, and killed if it has not exited within
   * {@link #STOP_GRACE}, so that nothing it still holds completes after this returns.
   */
  private static void quietlyClose(McpAsyncClient session, Optional<ProcessHandle> program) {
    try {
      session.close();
    } catch (RuntimeException e) {
      // closing is best effort; the session is dropped either way
    }
    program.ifPresent(
        process -> {
          try {
            process.onExit().get(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
          } catch (Exception e) {
            process.destroyForcibly();
            try {
              process.onExit().get(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception ignored) {
              // reported by nothing: the session is dropped either way
            }
          }
        });
  }

  private static Set<Long> children() {
    return ProcessHandle.current()
        .children()
        .map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
  }

  private static <T extends Throwable> Optional<T> find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }

  /**
   * Plain words for what went wrong, for answers and histories: a JSON-RPC code if the upstream
   * sent one, else the kind of failure (as the engine's {@code FailureWords} words it); never a
   * class or library name, nor an exception's message (which may quote a URL or a header).
   */
  static String describe(Throwable e) {
    Throwable wordable = null;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof McpError error && error.getJsonRpcError() != null) {
        return "a JSON-RPC error " + error.getJsonRpcError().code();
      }
      if (t.getMessage() != null && t.getMessage().startsWith("Timeout on blocking read")) {
        return "a timeout";
      }
      if (wordable == null
          && (t instanceof java.io.IOException || t instanceof InterruptedException)) {
        wordable = t;
      }
    }
    if (wordable instanceof java.net.SocketTimeoutException) {
      return "a timeout";
    }
    if (wordable instanceof java.net.ConnectException) {
      return "a refused or unreachable connection";
    }
    if (wordable instanceof InterruptedException
        || wordable instanceof java.io.InterruptedIOException) {
      return "an interruption";
    }
    return wordable != null ? "an I/O error" : "an unexpected error";
  }
}
