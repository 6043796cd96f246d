package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLHandshakeException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.io.ModalCloseable;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * One HTTP/1.1 exchange with the upstream, telling apart "nothing was sent" (the connection could
 * not be made) from everything after the request may have left (a timeout, a dropped connection),
 * which nobody can judge from here.
 *
 * <p>Apache HttpClient's classic (blocking) API writes the request and reads the answer on the
 * calling thread, over a pool of kept-alive connections: an exchange costs no thread hand-off. The
 * JDK client this replaced completes even its blocking {@code send} on threads of its own (its
 * selector, then its executor), which cost most of a call's wall time at one client (see
 * docs/benchmarks.md, "A declarative HTTP tool against its upstream").
 *
 * <p>Nothing is ever sent twice: automatic retries are off (the client's default retries only
 * idempotent methods, but a POST must not even be considered), redirects are not followed, and a
 * pooled connection that has been idle for a while is checked before it is reused, so that a
 * connection the upstream has closed is replaced before anything is written to it.
 */
final class Upstream {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static {
    MAPPER.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    MAPPER.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    MAPPER.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
  }

  /**
   * Connections kept per tool. Calls beyond it wait for a free connection (up to the call's
   * timeout, and then nothing was sent); the JDK client had no limit, and a limit this high is one
   * only against a runaway.
   */
  static final int MAX_CONNECTIONS = 256;

  /** A pooled connection idle for longer than this is checked before it carries a request. */
  static final TimeValue VALIDATE_AFTER_INACTIVITY = TimeValue.ofSeconds(1);

  /**
   * Ends an exchange that outlives its timeout: the socket timeout bounds each read, this bounds
   * the whole answer (an upstream that trickles bytes would otherwise hold the call for as long as
   * it likes). One watcher for every tool.
   */
  private static final Deadlines DEADLINES = new Deadlines();

  private final Duration connectTimeout;
  private final int maxBodyBytes;
  private volatile CloseableHttpClient client;

  Upstream(Duration connectTimeout, int maxBodyBytes) {
    // Before any client exists: its loggers would print headers, bodies and downstream keys.
    HttpClientLogs.silence();
    this.connectTimeout = connectTimeout;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** Certain that nothing reached the upstream. The message is safe to show (no URL, no key). */
  static final class NothingSent extends Exception {
    private static final long serialVersionUID = 1L;

    NothingSent(String message) {
      super(message);
    }
  }

  /** One request: {@code body} is null when none is sent. */
  // Never compared or hashed: it carries the bytes to send, so identity equality is harmless.
  @SuppressWarnings("ArrayRecordComponent")
  record Call(String method, URI uri, List<Header> headers, byte[] body) {
    Call {
      headers = List.copyOf(headers);
    }
  }

  /** The upstream's answer; the body is empty when it was over the limit. */
  // Never compared or hashed: it carries the bytes received, so identity equality is harmless.
  @SuppressWarnings("ArrayRecordComponent")
  record Answer(int status, byte[] body, boolean tooLarge, Optional<String> contentType) {}

  static byte[] write(JsonNode body) {
    try {
      return MAPPER.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
  }

  /**
   * Built on first use, so that defining a tool opens nothing. Once built, a call takes it with a
   * volatile read, without a monitor that sixteen concurrent calls would contend for.
   */
  private CloseableHttpClient client() {
    CloseableHttpClient built = client;
    return built != null ? built : build();
  }

  private synchronized CloseableHttpClient build() {
    if (client == null) {
      client =
          HttpClients.custom()
              .setConnectionManager(
                  PoolingHttpClientConnectionManagerBuilder.create()
                      .useSystemProperties()
                      .setMaxConnTotal(MAX_CONNECTIONS)
                      .setMaxConnPerRoute(MAX_CONNECTIONS)
                      .setDefaultConnectionConfig(
                          ConnectionConfig.custom()
                              .setConnectTimeout(Timeout.of(connectTimeout))
                              .setValidateAfterInactivity(VALIDATE_AFTER_INACTIVITY)
                              .build())
                      .build())
              .useSystemProperties()
              .disableAutomaticRetries()
              .disableRedirectHandling()
              .disableCookieManagement()
              .disableAuthCaching()
              // The body is kept as the upstream sent it, and its size limit applies to that.
              .disableContentCompression()
              .build();
    }
    return client;
  }

  /**
   * Sends {@code call} and waits at most {@code timeout} for the whole answer.
   *
   * @throws NothingSent when the connection could not be made (refused, unknown host, connect
   *     timeout, TLS handshake failure, no pooled connection free in time): the request never left
   * @throws IOException when the request may have reached the upstream and no complete answer came
   *     back ({@link HttpTimeoutException}, a dropped connection)
   */
  Answer exchange(Call call, Duration timeout) throws NothingSent, IOException {
    HttpUriRequestBase request = new HttpUriRequestBase(call.method(), call.uri());
    for (Header header : call.headers()) {
      request.addHeader(header.name(), header.value());
    }
    if (call.body() != null) {
      // No content type on the entity: the tool's own Content-Type header says it.
      request.setEntity(new ByteArrayEntity(call.body(), null));
    }
    Timeout bound = Timeout.of(timeout);
    request.setConfig(
        RequestConfig.custom()
            .setConnectionRequestTimeout(bound)
            .setResponseTimeout(bound)
            .build());
    Deadlines.Watch watch = DEADLINES.watch(request, timeout);
    ClassicHttpResponse response = null;
    try {
      response = client().executeOpen(null, request, null);
      Optional<String> contentType =
          Optional.ofNullable(response.getFirstHeader("Content-Type")).map(h -> h.getValue());
      Optional<byte[]> body = read(response.getEntity());
      if (body.isEmpty()) {
        // Over the limit: the connection is dropped rather than drained.
        request.cancel();
        return new Answer(response.getCode(), new byte[0], true, contentType);
      }
      return new Answer(response.getCode(), body.get(), false, contentType);
    } catch (IOException e) {
      // A read that waited the whole timeout (the socket's) is the same timeout, seen first.
      if (watch.fired()
          || (e instanceof SocketTimeoutException && !(e instanceof ConnectTimeoutException))) {
        throw new HttpTimeoutException("no complete answer within " + timeout.toMillis() + " ms");
      }
      Optional<String> notSent = nothingSent(e);
      if (notSent.isPresent()) {
        throw new NothingSent(notSent.get());
      }
      throw e;
    } finally {
      watch.close();
      if (response instanceof ModalCloseable closeable) {
        // The answer is complete (or abandoned) by now: releasing the connection decides nothing.
        closeable.close(CloseMode.GRACEFUL);
      }
    }
  }

  /** The whole body, or empty when it is over the limit (reading stops there). */
  private Optional<byte[]> read(HttpEntity entity) throws IOException {
    if (entity == null) {
      return Optional.of(new byte[0]);
    }
    if (entity.getContentLength() > maxBodyBytes) {
      return Optional.empty();
    }
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream((int) Math.max(0, Math.min(entity.getContentLength(), 8192)));
    InputStream in = entity.getContent();
    byte[] buffer = new byte[8192];
    for (int n; (n = in.read(buffer)) != -1; ) {
      if (bytes.size() + (long) n > maxBodyBytes) {
        return Optional.empty();
      }
      bytes.write(buffer, 0, n);
    }
    return Optional.of(bytes.toByteArray());
  }

  /** Why nothing was sent, when {@code failure} shows that the connection was never made. */
  static Optional<String> nothingSent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectTimeoutException) {
        return Optional.of("the upstream could not be connected to in time");
      }
      if (t instanceof ConnectionRequestTimeoutException) {
        return Optional.of("no connection to the upstream was free in time");
      }
      if (t instanceof ConnectException) {
        return Optional.of("the upstream refused the connection or could not be reached");
      }
      if (t instanceof UnknownHostException) {
        return Optional.of("the upstream's host name could not be resolved");
      }
      if (t instanceof SSLHandshakeException) {
        return Optional.of("the TLS handshake with the upstream failed");
      }
    }
    return Optional.empty();
  }

  /**
   * The body as JSON: the upstream's JSON when it sent some (a JSON or {@code +json} content type,
   * or none), else {@code {"text": "..."}}; an empty body is {@code {}}.
   *
   * @throws UpstreamAnswerTooLargeException when the body was over the limit
   */
  static JsonNode json(Answer answer) throws UpstreamAnswerTooLargeException {
    if (answer.tooLarge()) {
      throw new UpstreamAnswerTooLargeException(answer.status());
    }
    if (answer.body().length == 0) {
      return MAPPER.createObjectNode();
    }
    String contentType = answer.contentType().orElse("").toLowerCase(Locale.ROOT);
    String mediaType = contentType.split(";", 2)[0].strip();
    if (mediaType.isEmpty()
        || mediaType.equals("application/json")
        || mediaType.endsWith("+json")) {
      try {
        return MAPPER.readTree(answer.body());
      } catch (IOException e) {
        // Not JSON after all: keep it as text below.
      }
    }
    return MAPPER.createObjectNode().put("text", new String(answer.body(), charset(contentType)));
  }

  private static Charset charset(String contentType) {
    for (String param : contentType.split(";", -1)) {
      String p = param.strip();
      if (p.startsWith("charset=")) {
        try {
          return Charset.forName(p.substring("charset=".length()).replace("\"", "").strip());
        } catch (RuntimeException e) {
          return StandardCharsets.UTF_8;
        }
      }
    }
    return StandardCharsets.UTF_8;
  }
}
