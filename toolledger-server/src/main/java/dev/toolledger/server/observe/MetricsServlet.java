package dev.toolledger.server.observe;

import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.AuthorizationHeader;
import dev.toolledger.server.auth.OperatorAuthenticator;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * {@code GET /metrics} in the Prometheus text format, to whoever {@link MetricsAccess} lets in. A
 * tenant's token is not enough: metrics describe the whole node.
 */
public final class MetricsServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** Where the metrics are served. */
  public static final String PATH = "/metrics";

  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final transient Observability observability;
  private final MetricsAccess access;
  private final transient OperatorAuthenticator operators;

  public MetricsServlet(
      Observability observability, MetricsAccess access, OperatorAuthenticator operators) {
    this.observability = observability;
    this.access = access;
    this.operators = operators;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!"GET".equals(request.getMethod())) {
      response.setHeader("Allow", "GET");
      problem(response, Problem.of(ProblemType.METHOD_NOT_ALLOWED, "use GET on /metrics"));
      return;
    }
    Optional<Problem> several = AuthorizationHeader.several(request);
    if (access != MetricsAccess.OPEN && several.isPresent()) {
      problem(response, several.get());
      return;
    }
    if (!allowed(request)) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"toolledger-operator\"");
      problem(
          response,
          Problem.of(
              ProblemType.UNAUTHORIZED,
              operators.configured()
                  ? "send an operator token: 'Authorization: Bearer <token>' with the node's"
                      + " TOOLLEDGER_OPERATOR_TOKEN or a token from 'toolledger tokens create"
                      + " --operator'"
                  : "metrics are served to loopback clients only; issue an operator token to"
                      + " scrape from elsewhere"));
      return;
    }
    byte[] body = observability.scrape().getBytes(StandardCharsets.UTF_8);
    response.setStatus(200);
    response.setContentType(CONTENT_TYPE);
    response.setHeader("Cache-Control", "no-store");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  private boolean allowed(HttpServletRequest request) {
    return switch (access) {
      case OPEN -> true;
      case LOOPBACK ->
          isLoopback(request.getRemoteAddr())
              || operators.authenticate(request.getHeader("Authorization")).isPresent();
      case OPERATOR -> operators.authenticate(request.getHeader("Authorization")).isPresent();
      case OFF -> false;
    };
  }

  static boolean isLoopback(String address) {
    if (address == null || address.isEmpty()) {
      return false;
    }
    try {
      // A literal address: no name lookup happens.
      String literal =
          address.startsWith("[") ? address.substring(1, address.length() - 1) : address;
      return (literal.matches("[0-9.]+") || literal.contains(":"))
          && InetAddress.getByName(literal).isLoopbackAddress();
    } catch (UnknownHostException | StringIndexOutOfBoundsException e) {
      return false;
    }
  }

  private static void problem(HttpServletResponse response, Problem problem) throws IOException {
    byte[] body = Json.write(problem.toJson()).getBytes(StandardCharsets.UTF_8);
    response.setStatus(problem.status());
    response.setContentType("application/problem+json");
    response.setHeader("Cache-Control", "no-store");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
