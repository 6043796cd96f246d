package dev.toolledger.declarative.sql;

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

/** A small HTTP/1.1 client for tests: real sockets, no mocks. */
final class Http {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http() {}

  /** A response, with its body parsed when it is JSON. */
  record Reply(int status, String body, HttpHeaders headers) {
    JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (JsonProcessingException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    String problemType() {
      return json().path("type").asText();
    }

    boolean replayed() {
      return "true".equals(header("Idempotent-Replayed"));
    }
  }

  /** {@code POST /v1/tools/{tool}} under an operation key. */
  static Reply call(URI base, String token, String tool, String key, String parameters) {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/v1/tools/" + tool))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(parameters))
            .build();
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
