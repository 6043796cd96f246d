package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.server.answer.Answer;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An answer as HTTP sends it: status, content type, headers and body. A recorded outcome carries
 * {@code Idempotent-Replayed: true|false} and its stored body verbatim; a problem of the ledger is
 * an RFC 9457 document with {@code Retry-After} when it names a wait. Nothing is cached.
 */
record HttpFrame(int status, String contentType, Map<String, String> headers, String body) {
  static final String REPLAYED_HEADER = "Idempotent-Replayed";
  static final String JSON = "application/json";
  static final String PROBLEM_JSON = "application/problem+json";

  HttpFrame {
    headers = Map.copyOf(headers);
  }

  static HttpFrame of(Answer answer) {
    Map<String, String> headers = new LinkedHashMap<>();
    answer.retryAfter().ifPresent(d -> headers.put("Retry-After", Long.toString(d.toSeconds())));
    if (answer instanceof Answer.Recorded recorded) {
      headers.put(REPLAYED_HEADER, Boolean.toString(recorded.replayed()));
      // A recorded refusal of the tool is a problem document of the tool's own.
      return new HttpFrame(
          recorded.status(),
          recorded.status() >= 400 ? PROBLEM_JSON : JSON,
          headers,
          recorded.response().body());
    }
    if (answer instanceof Answer.Refused refused) {
      return new HttpFrame(
          refused.status(), PROBLEM_JSON, headers, Json.write(refused.problem().toJson()));
    }
    if (answer instanceof Answer.Found found) {
      return new HttpFrame(found.status(), JSON, headers, Json.write(found.body()));
    }
    throw new IllegalStateException("no HTTP frame for " + answer.getClass().getSimpleName());
  }

  static HttpFrame json(int status, JsonNode body) {
    return new HttpFrame(status, JSON, Map.of(), Json.write(body));
  }

  static HttpFrame problem(Problem problem) {
    return of(Answer.Refused.of(problem));
  }

  void writeTo(HttpServletResponse response) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType(contentType);
    response.setHeader("Cache-Control", "no-store");
    headers.forEach(response::setHeader);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }
}
