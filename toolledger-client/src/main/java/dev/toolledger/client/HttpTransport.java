package dev.toolledger.client;

import dev.toolledger.client.journal.Action;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;

/** ToolLedger's HTTP API, one request per attempt. */
final class HttpTransport implements ActionTransport {
  private final HttpClient http;
  private final String base;
  private final String authorization;
  private final Clock clock;

  HttpTransport(HttpClient http, URI baseUri, String token, Clock clock) {
    this.http = http;
    String b = baseUri.toString();
    this.base = b.endsWith("/") ? b.substring(0, b.length() - 1) : b;
    this.authorization = "Bearer " + token;
    this.clock = clock;
  }

  @Override
  public AttemptResult<Outcome> send(OperationKey key, Action action, Duration timeout) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/v1/tools/" + encodeSegment(action.tool())))
            .timeout(atLeastOneMilli(timeout))
            .header("Authorization", authorization)
            .header("Idempotency-Key", structuredString(key.value()))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, application/problem+json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(action.parameters())))
            .build();
    return exchange(
        request,
        response ->
            HttpAnswers.tool(
                key,
                response.statusCode(),
                name -> response.headers().firstValue(name),
                response.body(),
                clock));
  }

  @Override
  public AttemptResult<LookupResult> lookup(OperationKey key, Duration timeout) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/v1/operations/" + encodeSegment(key.value())))
            .timeout(atLeastOneMilli(timeout))
            .header("Authorization", authorization)
            .header("Accept", "application/json, application/problem+json")
            .GET()
            .build();
    return exchange(
        request,
        response ->
            HttpAnswers.lookup(
                key,
                response.statusCode(),
                name -> response.headers().firstValue(name),
                response.body(),
                clock));
  }

  private <T> AttemptResult<T> exchange(
      HttpRequest request, Function<HttpResponse<String>, AttemptResult<T>> classify) {
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpTimeoutException e) {
      return AttemptResult.retry("timed out (" + e.getClass().getSimpleName() + ")");
    } catch (IOException e) {
      // Connection refused, reset, or closed before the answer: the request may or may not have
      // reached the server. Only the message's class is reported; messages carry addresses.
      return AttemptResult.retry("transport failure (" + e.getClass().getSimpleName() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return AttemptResult.retry("interrupted while waiting for the answer");
    }
    return classify.apply(response);
  }

  private static Duration atLeastOneMilli(Duration timeout) {
    return timeout.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : timeout;
  }

  /** The key as an RFC 8941 String, which is how the IETF draft sends {@code Idempotency-Key}. */
  static String structuredString(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Percent-encodes one path segment: everything but RFC 3986 unreserved characters. */
  static String encodeSegment(String segment) {
    if (segment.equals(".") || segment.equals("..")) {
      return segment.equals(".") ? "%2E" : "%2E%2E";
    }
    byte[] bytes = segment.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + 8);
    for (byte raw : bytes) {
      int b = raw & 0xFF;
      boolean unreserved =
          (b >= 'a' && b <= 'z')
              || (b >= 'A' && b <= 'Z')
              || (b >= '0' && b <= '9')
              || b == '-'
              || b == '.'
              || b == '_'
              || b == '~';
      if (unreserved) {
        out.write(b);
      } else {
        out.write('%');
        out.write(Character.toUpperCase(Character.forDigit(b >> 4, 16)));
        out.write(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
      }
    }
    return out.toString(StandardCharsets.US_ASCII);
  }
}
