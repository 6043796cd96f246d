package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.Json;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code GET /health}: 200 {@code ok}, or 503 {@code unavailable} with the reason. */
final class HealthEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(HealthEndpoint.class);

  private final HealthCheck health;

  HealthEndpoint(HealthCheck health) {
    this.health = health;
  }

  void serve(HttpServletResponse response) throws IOException {
    String problem;
    try {
      problem = health.problem();
    } catch (RuntimeException e) {
      LOG.warn("the health check failed", e);
      problem = "the health check failed";
    }
    ObjectNode body = Json.object();
    body.put("status", problem == null ? "ok" : "unavailable");
    if (problem != null) {
      body.put("reason", problem);
    }
    HttpFrame.json(problem == null ? 200 : 503, body).writeTo(response);
  }
}
