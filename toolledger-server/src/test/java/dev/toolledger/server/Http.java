package dev.toolledger.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A small HTTP/1.1 client for tests: real sockets, no mocks. */
final class Http {
  static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http() {}

  /** A response with its body parsed, when it is JSON. */
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

  static Reply post(
      URI base, String path, String token, String key, String body, String... headers) {
    List<String> all = new ArrayList<>();
    if (token != null) {
      all.add("Authorization");
      all.add("Bearer " + token);
    }
    if (key != null) {
      all.add("Idempotency-Key");
      all.add(key);
    }
    all.add("Content-Type");
    all.add("application/json");
    all.addAll(List.of(headers));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < all.size(); i += 2) {
      request.setHeader(all.get(i), all.get(i + 1));
    }
    return send(request.build());
  }

  static Reply createNote(URI base, String token, String key, String body) {
    return post(base, "/v1/tools/create-note", token, key, body);
  }

  static Reply get(URI base, String path, String token) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(request.build());
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
