package dev.toolledger.declarative;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP/1.1 client for the declarative tools' tests, talking to ToolLedger over sockets. */
public final class Http {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http() {}

  /** A response, with its body parsed when it is JSON. */
  public record Reply(int status, String body, HttpHeaders headers) {
    public JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (JsonProcessingException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    public String problemType() {
      return json().path("type").asText();
    }

    public boolean replayed() {
      return "true".equals(header("Idempotent-Replayed"));
    }
  }

  /** {@code POST /v1/tools/{tool}} under an operation key. */
  public static Reply call(URI base, String token, String tool, String key, String parameters) {
    return post(base, "/v1/tools/" + tool, token, key, parameters);
  }

  /** A JSON POST; {@code key} may be null (no {@code Idempotency-Key}). */
  public static Reply post(URI base, String path, String token, String key, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return send(request.build());
  }

  public static Reply get(URI base, String path, String token) {
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build());
  }

  public static Reply send(HttpRequest request) {
    try {
      HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response.body(), response.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
