package dev.toolledger.server.http;

import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A problem document written as the whole answer of a filter that refuses a request. */
final class ProblemResponses {
  private ProblemResponses() {}

  static void write(HttpServletResponse response, Problem problem) throws IOException {
    byte[] body = Json.write(problem.toJson()).getBytes(StandardCharsets.UTF_8);
    response.setStatus(problem.status());
    response.setHeader("Cache-Control", "no-store");
    response.setContentType("application/problem+json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
