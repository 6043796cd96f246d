package dev.toolledger.server.outbox;

import dev.toolledger.core.outbox.Deliverer;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.problem.FailureWords;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Delivers outbox events by {@code POST} to their destination, with the event id as {@code
 * Idempotency-Key} so that the recipient can deduplicate.
 *
 * <p>2xx is delivered. A transport failure, a timeout, 408, 409, 425, 429 and 5xx are passing
 * failures (retried later, honouring {@code Retry-After} in seconds); any other status is a
 * definitive refusal.
 */
public final class HttpDeliverer implements Deliverer {
  /** Default time one delivery attempt may take: 10 seconds. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final HttpClient client;
  private final Duration timeout;

  public HttpDeliverer(Duration timeout) {
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public DeliveryResult deliver(OutboxEvent event) {
    HttpRequest request =
        HttpRequest.newBuilder(event.destination())
            .timeout(timeout)
            .header("Idempotency-Key", event.id())
            .header("Content-Type", "application/json")
            .header("ToolLedger-Event-Topic", event.topic())
            .header("ToolLedger-Event-Aggregate", event.aggregate())
            .POST(HttpRequest.BodyPublishers.ofString(event.payload()))
            .build();
    HttpResponse<Void> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      return new DeliveryResult.Retry(FailureWords.of(e), Optional.empty());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new DeliveryResult.Retry("interrupted", Optional.empty());
    }
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return new DeliveryResult.Delivered();
    }
    if (status >= 500 || status == 408 || status == 409 || status == 425 || status == 429) {
      Optional<Duration> retryAfter =
          response.headers().firstValue("Retry-After").flatMap(HttpDeliverer::seconds);
      return new DeliveryResult.Retry("HTTP " + status, retryAfter);
    }
    return new DeliveryResult.Refused("HTTP " + status);
  }

  private static Optional<Duration> seconds(String value) {
    try {
      long seconds = Long.parseLong(value.strip());
      return seconds >= 0
          ? Optional.of(Duration.ofSeconds(Math.min(seconds, 3600)))
          : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
