package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLHandshakeException;

/**
 * One HTTP exchange with the upstream, telling apart "nothing was sent" (the connection could not
 * be made) from everything after the request may have left (a timeout, a dropped connection), which
 * nobody can judge from here.
 *
 * <p>The JDK client never re-sends a POST, PUT, PATCH or DELETE by itself; it only retries a failed
 * connect, before anything was sent. Redirects are not followed.
 */
final class Upstream {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static {
    MAPPER.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    MAPPER.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    MAPPER.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
  }

  /**
   * Where each exchange's blocking {@code send} runs while the caller waits for it with the
   * timeout. Not {@code sendAsync}: the JDK client completes an asynchronous exchange on {@code
   * CompletableFuture}'s default executor, which starts a new thread per exchange when the common
   * pool has fewer than two threads (on a machine with one or two CPUs). Pooled, daemon threads
   * that idle out after a minute.
   */
  private static final ExecutorService SENDERS =
      Executors.newCachedThreadPool(
          new ThreadFactory() {
            private final AtomicInteger count = new AtomicInteger();

            @Override
            public Thread newThread(Runnable task) {
              Thread thread = new Thread(task, "toolledger-http-tool-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            }
          });

  private final Duration connectTimeout;
  private final int maxBodyBytes;
  private HttpClient client;

  Upstream(Duration connectTimeout, int maxBodyBytes) {
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

  /** The upstream's answer; the body is empty when it was over the limit. */
  record Answer(int status, byte[] body, boolean tooLarge, Optional<String> contentType) {}

  static byte[] write(JsonNode body) {
    try {
      return MAPPER.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
  }

  /** Built on first use, so that defining a tool starts no thread. */
  private synchronized HttpClient client() {
    if (client == null) {
      client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(connectTimeout)
              .followRedirects(HttpClient.Redirect.NEVER)
              .build();
    }
    return client;
  }

  /**
   * Sends {@code request} and waits at most {@code timeout} for the whole answer.
   *
   * @throws NothingSent when the connection could not be made (refused, unknown host, connect
   *     timeout, TLS handshake failure): the request never left
   * @throws IOException when the request may have reached the upstream and no complete answer came
   *     back ({@link HttpTimeoutException}, a dropped connection)
   */
  Answer exchange(HttpRequest request, Duration timeout)
      throws NothingSent, IOException, InterruptedException {
    Future<HttpResponse<Capped>> future =
        SENDERS.submit(() -> client().send(request, info -> new CappedSubscriber(maxBodyBytes)));
    try {
      HttpResponse<Capped> response = future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return new Answer(
          response.statusCode(),
          response.body().bytes(),
          response.body().tooLarge(),
          response.headers().firstValue("Content-Type"));
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new HttpTimeoutException("no complete answer within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      Optional<String> notSent = nothingSent(cause);
      if (notSent.isPresent()) {
        throw new NothingSent(notSent.get());
      }
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("the exchange failed with " + cause.getClass().getSimpleName(), cause);
    }
  }

  /** Why nothing was sent, when {@code failure} shows that the connection was never made. */
  static Optional<String> nothingSent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException) {
        return Optional.of("the upstream could not be connected to in time");
      }
      if (t instanceof ConnectException) {
        return Optional.of("the upstream refused the connection or could not be reached");
      }
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return Optional.of("the upstream's host name could not be resolved");
      }
      if (t instanceof SSLHandshakeException) {
        return Optional.of("the TLS handshake with the upstream failed");
      }
      if (t instanceof HttpTimeoutException) {
        return Optional.empty();
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
    for (String param : contentType.split(";")) {
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

  record Capped(byte[] bytes, boolean tooLarge) {}

  /** Collects a body up to a limit; past it, stops reading (closing the connection). */
  private static final class CappedSubscriber implements HttpResponse.BodySubscriber<Capped> {
    private final CompletableFuture<Capped> result = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final int limit;
    private Flow.Subscription subscription;

    CappedSubscriber(int limit) {
      this.limit = limit;
    }

    @Override
    public CompletionStage<Capped> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) {
        return;
      }
      for (ByteBuffer item : items) {
        if (bytes.size() + (long) item.remaining() > limit) {
          result.complete(new Capped(new byte[0], true));
          subscription.cancel();
          return;
        }
        byte[] chunk = new byte[item.remaining()];
        item.get(chunk);
        bytes.write(chunk, 0, chunk.length);
      }
    }

    @Override
    public void onError(Throwable throwable) {
      result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      result.complete(new Capped(bytes.toByteArray(), false));
    }
  }
}
