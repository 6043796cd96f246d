package dev.toolledger.cli;

import dev.toolledger.testkit.history.Answer;
import dev.toolledger.testkit.history.Call;
import dev.toolledger.testkit.history.History;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * An HTTP client that writes every tool call and lookup it sends, and what came back, into a {@link
 * History}: handed to {@code ToolLedgerClient}, it records each attempt of the client's own
 * retries, exactly as the client sent and heard it. Other requests pass unrecorded.
 */
final class RecordingHttpClient extends HttpClient {
  private static final String TOOLS = "/v1/tools/";
  private static final String OPERATIONS = "/v1/operations/";

  private final HttpClient delegate;
  private final History history;

  RecordingHttpClient(HttpClient delegate, History history) {
    this.delegate = delegate;
    this.history = history;
  }

  /** An HTTP/1.1 client without redirects, as ToolLedgerClient builds its own. */
  static RecordingHttpClient over(History history, Duration connectTimeout) {
    return new RecordingHttpClient(
        HttpClient.newBuilder()
            .version(Version.HTTP_1_1)
            .followRedirects(Redirect.NEVER)
            .connectTimeout(connectTimeout)
            .build(),
        history);
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    String path = request.uri().getPath();
    boolean tool = path.startsWith(TOOLS) && request.method().equals("POST");
    boolean lookup = path.startsWith(OPERATIONS) && request.method().equals("GET");
    if (!tool && !lookup) {
      return delegate.send(request, handler);
    }
    String parameters = tool ? body(request) : "";
    Instant start = Instant.now();
    Answer answer;
    try {
      HttpResponse<T> response = delegate.send(request, handler);
      Optional<String> replayed = response.headers().firstValue("Idempotent-Replayed");
      answer =
          new Answer.Heard(
              response.statusCode(),
              response.body() instanceof String s ? s : "",
              replayed.isPresent(),
              replayed.map(v -> v.strip().equalsIgnoreCase("true")).orElse(false));
      record(request, tool, parameters, start, answer);
      return response;
    } catch (IOException e) {
      record(request, tool, parameters, start, new Answer.None(e.getClass().getSimpleName()));
      throw e;
    }
  }

  private void record(
      HttpRequest request, boolean tool, String parameters, Instant start, Answer answer) {
    Instant end = Instant.now();
    String path = request.uri().getPath();
    if (tool) {
      String key = unquote(request.headers().firstValue("Idempotency-Key").orElse(""));
      history.add(Call.tool(key, path.substring(TOOLS.length()), parameters, start, end, answer));
    } else {
      history.add(Call.lookup(path.substring(OPERATIONS.length()), start, end, answer));
    }
  }

  /** The key of an RFC 8941 String header, as the client sends it. */
  private static String unquote(String header) {
    if (header.length() >= 2 && header.startsWith("\"") && header.endsWith("\"")) {
      return header.substring(1, header.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
    }
    return header;
  }

  private static String body(HttpRequest request) {
    Optional<HttpRequest.BodyPublisher> publisher = request.bodyPublisher();
    if (publisher.isEmpty()) {
      return "";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CompletableFuture<Void> done = new CompletableFuture<>();
    publisher
        .get()
        .subscribe(
            new Flow.Subscriber<ByteBuffer>() {
              @Override
              public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ByteBuffer item) {
                byte[] bytes = new byte[item.remaining()];
                item.get(bytes);
                out.writeBytes(bytes);
              }

              @Override
              public void onError(Throwable throwable) {
                done.completeExceptionally(throwable);
              }

              @Override
              public void onComplete() {
                done.complete(null);
              }
            });
    try {
      done.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the request body to record it", e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    return delegate.sendAsync(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request,
      HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    return delegate.sendAsync(request, handler, pushPromiseHandler);
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  @Override
  public Version version() {
    return delegate.version();
  }

  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }
}
