package dev.toolledger.clientmcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionClosedException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A Streamable HTTP client transport for the official MCP Java SDK's clients ({@code
 * McpClient.sync(transport)}) that does each exchange synchronously on the thread that sends the
 * message: the JSON-RPC message is POSTed over a kept-alive HTTP/1.1 connection from a small pool
 * this transport owns, and the answer (one JSON body, or an SSE stream read event by event) is
 * handed to the SDK's session before {@code sendMessage} completes. With the SDK's sync client, a
 * call is then done entirely on the caller's thread: no {@code HttpClient} selector or worker
 * threads, no thread started per call, no hand-off between Reactor schedulers. It is still the
 * SDK's client (session, initialization, request ids, result types); only the transport is
 * ToolLedger's.
 *
 * <pre>{@code
 * McpSyncClient client =
 *     McpClient.sync(
 *             LeanStreamableHttpTransport.builder(URI.create("http://127.0.0.1:8080/mcp"))
 *                 .header("Authorization", "Bearer " + token)
 *                 .build())
 *         .requestTimeout(Duration.ofSeconds(10))
 *         .build();
 * }</pre>
 *
 * <p>What it does, per the specification's Streamable HTTP transport:
 *
 * <ul>
 *   <li>Every message is one POST with {@code Accept: application/json, text/event-stream}. A
 *       request's answer may be {@code application/json} (one message) or {@code
 *       text/event-stream}: the stream is parsed as the SSE standard says (multi-line {@code data},
 *       {@code id}, {@code event}, comments) and every {@code message} event with data is handed to
 *       the SDK, requests and notifications the server sends before its response included (the SDK
 *       answers those with a POST of their own). The stream is read to its end, which the server
 *       sends after the response.
 *   <li>The {@code Mcp-Session-Id} the server gives in its answer to {@code initialize} is sent on
 *       every later request, with {@code MCP-Protocol-Version} set to the version the SDK
 *       negotiated (the latest this transport supports before that).
 *   <li>A notification or response is answered {@code 202 Accepted}; any 2xx is taken.
 *   <li>A {@code 404} to a request that carried a session id means the server forgot the session:
 *       the session id is dropped, the message fails with {@link
 *       McpTransportSessionNotFoundException}, and the SDK's client is told through the exception
 *       handler, on which it initializes a new session (on this transport, at once and on the same
 *       thread). This is what the SDK's own {@code HttpClientStreamableHttpTransport} does; a call
 *       that met the 404 is not resent, by either.
 *   <li>Any other status outside 2xx fails the message with an {@link McpTransportException} whose
 *       message holds {@code status code: N} and the first 8 KiB of the body.
 *   <li>{@link #closeGracefully()} sends {@code DELETE} with the session id, then closes the
 *       connections; the transport takes no message after it.
 * </ul>
 *
 * <p>What it does not do, and refuses clearly where it could matter:
 *
 * <ul>
 *   <li>No standing GET stream: messages the server would send outside the answer to a request
 *       (list-changed notifications, requests not tied to a client request) are not received.
 *       ToolLedger's server answers that GET with {@code 405} and sends no such message; its tools
 *       need no sampling, elicitation or roots.
 *   <li>No resumption: an SSE answer that ends before the response fails the message ({@link
 *       McpTransportException}) instead of reconnecting with {@code Last-Event-ID}.
 *   <li>No resend, ever: a connection that fails is closed and the message fails; the caller
 *       decides (ToolLedger's client retries with the same operation key). Idle connections are
 *       dropped after {@link Builder#idleConnectionTimeout} so as not to write into one the server
 *       has closed.
 *   <li>No JSON-RPC batches in answers, no redirects, no proxies, no HTTP/2, no authorization
 *       handler (401 and 403 fail like any other status); headers are fixed when the transport is
 *       built.
 *   <li>No cancellation: the SDK's request timeout cannot stop a read in progress, so each exchange
 *       is bounded by the socket read timeout ({@link Builder#readTimeout}); keep it no longer than
 *       the client's request timeout.
 * </ul>
 *
 * <p>Thread-safe: concurrent messages each take a connection of their own.
 */
public final class LeanStreamableHttpTransport implements McpClientTransport {
  // One unit on purpose: the SDK's side (connect, sendMessage, the session id and the negotiated
  // version) and the exchange (the request head, the status rules, reading the answer) share the
  // session state and run on the sending thread, one message at a time; split, that state would
  // have to cross a boundary at every step. What stands alone is apart: the connection pool
  // (Http1Pool), HTTP/1.1 framing (Http1Connection) and SSE parsing (SseReader).

  /** Connect timeout by default: 10 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** Socket read timeout by default, the longest one exchange may wait for bytes: 60 seconds. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long an idle connection is kept by default: 20 seconds, below Jetty's default idle timeout
   * of 30 seconds, so that the transport does not write into a connection the server closed.
   */
  public static final Duration DEFAULT_IDLE_CONNECTION_TIMEOUT = Duration.ofSeconds(20);

  /** Idle connections kept by default: 16. */
  public static final int DEFAULT_MAX_IDLE_CONNECTIONS = 16;

  /** The largest answer (one JSON body, or one SSE event) taken by default: 16 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private static final List<String> PROTOCOL_VERSIONS =
      List.of(
          ProtocolVersions.MCP_2024_11_05,
          ProtocolVersions.MCP_2025_03_26,
          ProtocolVersions.MCP_2025_06_18,
          ProtocolVersions.MCP_2025_11_25);
  private static final String LATEST_VERSION = PROTOCOL_VERSIONS.get(PROTOCOL_VERSIONS.size() - 1);
  private static final int MAX_ERROR_BODY = 8 * 1024;

  /** The session as this transport knows it: none yet, one, or closed for good. */
  private record Session(String id, boolean closed) {
    static final Session NONE = new Session(null, false);
    static final Session CLOSED = new Session(null, true);
  }

  private final String path;
  private final String hostHeader;
  private final String fixedHeaders;
  private final int maxMessageBytes;
  private final McpJsonMapper json;
  private final Http1Pool connections;

  private final AtomicReference<Session> session = new AtomicReference<>(Session.NONE);
  private final AtomicReference<Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>>> handler =
      new AtomicReference<>();
  private final AtomicReference<Consumer<Throwable>> exceptionHandler = new AtomicReference<>();
  private volatile String negotiatedVersion = LATEST_VERSION;

  private LeanStreamableHttpTransport(Builder b) {
    URI endpoint = b.endpoint;
    boolean tls = "https".equalsIgnoreCase(endpoint.getScheme());
    String host = endpoint.getHost();
    this.path = endpoint.getRawPath();
    this.hostHeader = endpoint.getPort() >= 0 ? host + ":" + endpoint.getPort() : host;
    StringBuilder headers = new StringBuilder();
    b.headers.forEach(
        (name, value) -> headers.append(name).append(": ").append(value).append("\r\n"));
    this.fixedHeaders = headers.toString();
    this.connections =
        new Http1Pool(
            host,
            endpoint.getPort() >= 0 ? endpoint.getPort() : tls ? 443 : 80,
            tls,
            millis(b.connectTimeout),
            millis(b.readTimeout),
            b.idleConnectionTimeout.toNanos(),
            b.maxIdleConnections);
    this.maxMessageBytes = b.maxMessageBytes;
    this.json = b.jsonMapper == null ? new JacksonMcpJsonMapperSupplier().get() : b.jsonMapper;
  }

  /**
   * A builder for the MCP endpoint {@code endpoint}, an absolute {@code http} or {@code https} URI
   * with the endpoint's path and no query, for example {@code http://127.0.0.1:8080/mcp}.
   */
  public static Builder builder(URI endpoint) {
    return new Builder(endpoint);
  }

  @Override
  public List<String> protocolVersions() {
    return PROTOCOL_VERSIONS;
  }

  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    return Mono.fromRunnable(() -> this.handler.set(Objects.requireNonNull(handler, "handler")));
  }

  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    this.exceptionHandler.set(handler);
  }

  /**
   * POSTs {@code message} on the subscribing thread and hands the answer's messages to the SDK's
   * session before completing; fails with the reasons listed on the class.
   */
  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    return Mono.deferContextual(
        context -> {
          String version = context.getOrDefault(McpAsyncClient.NEGOTIATED_PROTOCOL_VERSION, null);
          if (version != null) {
            negotiatedVersion = version;
          } else if (message instanceof JSONRPCRequest request
              && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            version = LATEST_VERSION;
          } else {
            // The SDK sends its answers to the server's requests without the negotiated version in
            // the context; the version it negotiated last still applies to them.
            version = negotiatedVersion;
          }
          try {
            exchange(message, version);
            return Mono.empty();
          } catch (RuntimeException failure) {
            // As the SDK's own transport does: every failure goes to the exception handler too,
            // and the SDK's client re-initializes on McpTransportSessionNotFoundException.
            Consumer<Throwable> onFailure = exceptionHandler.get();
            if (onFailure != null) {
              onFailure.accept(failure);
            }
            return Mono.error(failure);
          }
        });
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return json.convertValue(data, typeRef);
  }

  /**
   * Sends {@code DELETE} for the session, if there is one (its outcome is not waited on beyond the
   * read timeout, and a failure is ignored: the server forgets idle sessions anyway), and closes
   * every connection. Later messages fail with {@link McpTransportSessionClosedException}.
   */
  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(
        () -> {
          Session last = session.getAndSet(Session.CLOSED);
          if (last.id() != null) {
            deleteSession(last.id());
          }
          connections.close();
        });
  }

  // ---------------------------------------------------------------------------------------------

  private void exchange(JSONRPCMessage message, String version) {
    Session current = session.get();
    if (current.closed()) {
      // The SDK deprecated the constructor that takes a message; its type alone says what happened.
      throw new McpTransportSessionClosedException();
    }
    byte[] body;
    try {
      body = json.writeValueAsBytes(message);
    } catch (IOException e) {
      throw new McpTransportException("the JSON-RPC message could not be serialized", e);
    }
    byte[] head = head("POST", current.id(), version, body.length);
    Http1Connection connection = connections.borrow();
    boolean reusable = false;
    JSONRPCMessage answer = null;
    try {
      Http1Connection.Response response = connection.send(head, body);
      String given = response.header("mcp-session-id");
      if (given != null && current.id() == null) {
        if (given.isEmpty() || !given.chars().allMatch(c -> c >= 0x21 && c <= 0x7E)) {
          // The specification allows visible ASCII only; anything else could split a header.
          throw new McpTransportException("the MCP endpoint gave an invalid session id");
        }
        session.compareAndSet(current, new Session(given, false));
      }
      int status = response.status();
      if (status == 404 && current.id() != null) {
        response.text(MAX_ERROR_BODY);
        reusable = response.reusable();
        session.compareAndSet(current, Session.NONE);
        throw new McpTransportSessionNotFoundException(
            "the MCP server does not know the session any more (HTTP 404)");
      }
      if (status < 200 || status > 299) {
        String text = response.text(MAX_ERROR_BODY);
        reusable = response.reusable();
        throw new McpTransportException(
            "the MCP endpoint answered POST with status code: "
                + status
                + ", response body: "
                + text);
      }
      if (message instanceof JSONRPCRequest request) {
        answer = readAnswer(request, response);
      } else {
        response.body().transferTo(OutputStream.nullOutputStream());
      }
      reusable = response.reusable();
    } catch (IOException e) {
      throw new McpTransportException(
          "the exchange with the MCP endpoint failed (" + e.getClass().getSimpleName() + ")", e);
    } finally {
      connections.release(connection, reusable);
    }
    if (answer != null) {
      // Handed over only now that the connection is back in the pool: the SDK goes on from the
      // response on this thread (after initialize, with notifications/initialized and the
      // caller's own request), and those then reuse this connection instead of opening more.
      deliver(answer);
    }
  }

  /**
   * Reads a request's answer to its end and returns the response to the request. Other messages in
   * an event stream (the server's requests and notifications) are handed to the SDK as they come,
   * since the server may wait for the client's answer to one before it responds. Fails if the
   * response is not in the answer.
   */
  private JSONRPCMessage readAnswer(JSONRPCRequest request, Http1Connection.Response response)
      throws IOException {
    String type = response.header("content-type");
    type = type == null ? "" : type.toLowerCase(Locale.ROOT);
    if (type.startsWith("text/event-stream")) {
      SseReader events = new SseReader(response.body(), maxMessageBytes);
      JSONRPCMessage answer = null;
      for (SseReader.Event event = events.next(); event != null; event = events.next()) {
        if (!event.type().equals("message") || event.data().isBlank()) {
          continue; // other event types, and empty priming events (2025-11-25), carry no message
        }
        JSONRPCMessage message = parse(event.data());
        if (answer == null && answers(request, message)) {
          answer = message;
        } else {
          deliver(message);
        }
      }
      if (answer == null) {
        throw new McpTransportException(
            "the MCP endpoint's event stream ended without the response to "
                + request.method()
                + " (this transport does not resume streams)");
      }
      return answer;
    }
    if (type.startsWith("application/json")) {
      String text = response.text(maxMessageBytes);
      if (text.stripLeading().startsWith("[")) {
        throw new McpTransportException(
            "the MCP endpoint answered with a JSON-RPC batch (unsupported)");
      }
      JSONRPCMessage message = parse(text);
      if (!answers(request, message)) {
        throw new McpTransportException(
            "the MCP endpoint's JSON answer to " + request.method() + " is not its response");
      }
      return message;
    }
    response.body().transferTo(OutputStream.nullOutputStream());
    throw new McpTransportException(
        "the MCP endpoint answered "
            + request.method()
            + " with status code: "
            + response.status()
            + " and no JSON-RPC message (content type '"
            + type
            + "')");
  }

  private static boolean answers(JSONRPCRequest request, JSONRPCMessage message) {
    return message instanceof JSONRPCResponse response
        && Objects.equals(response.id(), request.id());
  }

  /** Hands one message to the SDK's session. */
  private void deliver(JSONRPCMessage message) {
    Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> session = handler.get();
    if (session == null) {
      throw new McpTransportException("the transport is not connected to an MCP client");
    }
    session.apply(Mono.just(message)).subscribe(ignored -> {}, failure -> {});
  }

  private JSONRPCMessage parse(String data) {
    try {
      return McpSchema.deserializeJsonRpcMessage(json, data);
    } catch (IOException | IllegalArgumentException e) {
      throw new McpTransportException("the MCP endpoint sent an unreadable JSON-RPC message", e);
    }
  }

  private void deleteSession(String id) {
    Http1Connection connection = null;
    try {
      connection = connections.borrow();
      Http1Connection.Response response =
          connection.send(head("DELETE", id, negotiatedVersion, -1), new byte[0]);
      response.body().transferTo(OutputStream.nullOutputStream());
    } catch (IOException | RuntimeException e) {
      // Best effort: a session not deleted expires on the server after its idle timeout.
    } finally {
      if (connection != null) {
        connection.close(); // the transport is closing: no connection is kept
      }
    }
  }

  private byte[] head(String method, String sessionId, String version, int length) {
    StringBuilder head = new StringBuilder(256 + fixedHeaders.length());
    head.append(method)
        .append(' ')
        .append(path)
        .append(" HTTP/1.1\r\nHost: ")
        .append(hostHeader)
        .append("\r\n");
    if (length >= 0) {
      head.append("Content-Type: application/json\r\n")
          .append("Accept: application/json, text/event-stream\r\n")
          .append("Content-Length: ")
          .append(length)
          .append("\r\n");
    }
    head.append("MCP-Protocol-Version: ").append(version).append("\r\n");
    if (sessionId != null) {
      head.append("Mcp-Session-Id: ").append(sessionId).append("\r\n");
    }
    head.append(fixedHeaders).append("\r\n");
    return head.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static int millis(Duration duration) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
  }

  /** Options of a {@link LeanStreamableHttpTransport}; {@link #build()} checks them. */
  public static final class Builder {
    private final URI endpoint;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private Duration idleConnectionTimeout = DEFAULT_IDLE_CONNECTION_TIMEOUT;
    private int maxIdleConnections = DEFAULT_MAX_IDLE_CONNECTIONS;
    private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
    private McpJsonMapper jsonMapper;

    private Builder(URI endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    /**
     * A header sent with every request, for example {@code Authorization}; none by default. The
     * headers the transport manages ({@code Host}, {@code Content-Type}, {@code Content-Length},
     * {@code Accept}, {@code Mcp-Session-Id}, {@code MCP-Protocol-Version}) cannot be set.
     */
    public Builder header(String name, String value) {
      Objects.requireNonNull(name, "header name");
      Objects.requireNonNull(value, "header value");
      headers.put(name, value);
      return this;
    }

    /** The connect timeout; {@link #DEFAULT_CONNECT_TIMEOUT} by default. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * The socket read timeout, which bounds each exchange (the SDK's request timeout cannot stop a
     * read on this transport); {@link #DEFAULT_READ_TIMEOUT} by default.
     */
    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = readTimeout;
      return this;
    }

    /**
     * How long an unused connection is kept; {@link #DEFAULT_IDLE_CONNECTION_TIMEOUT} by default.
     * Keep it below the server's idle timeout.
     */
    public Builder idleConnectionTimeout(Duration idleConnectionTimeout) {
      this.idleConnectionTimeout = idleConnectionTimeout;
      return this;
    }

    /** How many unused connections are kept; {@link #DEFAULT_MAX_IDLE_CONNECTIONS} by default. */
    public Builder maxIdleConnections(int maxIdleConnections) {
      this.maxIdleConnections = maxIdleConnections;
      return this;
    }

    /**
     * The largest JSON answer or SSE event taken; {@link #DEFAULT_MAX_MESSAGE_BYTES} by default.
     */
    public Builder maxMessageBytes(int maxMessageBytes) {
      this.maxMessageBytes = maxMessageBytes;
      return this;
    }

    /** The SDK's JSON mapper to use; the SDK's Jackson 2 mapper by default. */
    public Builder jsonMapper(McpJsonMapper jsonMapper) {
      this.jsonMapper = Objects.requireNonNull(jsonMapper, "jsonMapper");
      return this;
    }

    /**
     * The transport.
     *
     * @throws IllegalArgumentException when an option is unusable; the message names it
     */
    public LeanStreamableHttpTransport build() {
      McpEndpoints.requireHttpWithoutQuery(endpoint);
      if (endpoint.getRawPath() == null || endpoint.getRawPath().isEmpty()) {
        throw new IllegalArgumentException("endpoint must name the MCP path, for example /mcp");
      }
      for (Map.Entry<String, String> header : headers.entrySet()) {
        String name = header.getKey();
        if (name.isEmpty() || !name.chars().allMatch(Builder::tokenChar)) {
          throw new IllegalArgumentException("header name must be an HTTP token");
        }
        if (MANAGED.contains(name.toLowerCase(Locale.ROOT))) {
          throw new IllegalArgumentException(
              "header " + name + " is set by the transport and cannot be given");
        }
        if (header
            .getValue()
            .chars()
            .anyMatch(c -> (c < 0x20 && c != '\t') || c == 0x7F || c > 0xFF)) {
          throw new IllegalArgumentException(
              "header " + name + " has a value with control characters");
        }
      }
      positive(connectTimeout, "connectTimeout");
      positive(readTimeout, "readTimeout");
      positive(idleConnectionTimeout, "idleConnectionTimeout");
      if (maxIdleConnections < 0) {
        throw new IllegalArgumentException("maxIdleConnections must not be negative");
      }
      if (maxMessageBytes < 1024) {
        throw new IllegalArgumentException("maxMessageBytes must be at least 1024");
      }
      return new LeanStreamableHttpTransport(this);
    }

    private static final java.util.Set<String> MANAGED =
        java.util.Set.of(
            "host",
            "content-type",
            "content-length",
            "transfer-encoding",
            "connection",
            "accept",
            "mcp-session-id",
            "mcp-protocol-version");

    private static boolean tokenChar(int c) {
      return c > 0x20 && c < 0x7F && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
    }

    private static void positive(Duration value, String option) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive");
      }
    }
  }
}
