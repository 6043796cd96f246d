package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.core.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP/1.1 client for tests, talking to ToolLedger over real sockets. */
final class Http {
  static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http() {}

  record Reply(int status, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() {
      return Json.parse(body);
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    String problemType() {
      return json().path("type").asText();
    }
  }

  static Reply post(URI base, String path, String token, String key, String body) {
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

  static Reply get(URI base, String path, String token) {
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build());
  }

  static Reply send(HttpRequest request) {
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
