package dev.toolledger.server.mcp;

import dev.toolledger.core.json.Json;
import dev.toolledger.core.problem.Problem;
import dev.toolledger.core.problem.ProblemType;
import dev.toolledger.server.auth.AuthorizationHeader;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Stands in front of the MCP transport servlet.
 *
 * <ul>
 *   <li>A request with several {@code Authorization} headers is answered {@code 400}.
 *   <li>Only requests with an active bearer token pass; their principal goes on as a request
 *       attribute, and everything else is answered {@code 401} with the HTTP API's problem
 *       document. The tenant comes from the token and from nothing the client says. An operator
 *       token, which acts for no tenant, is answered {@code 403}.
 *   <li>{@code GET} (a standing server-to-client SSE stream) is answered {@code 405}, which the MCP
 *       specification allows: ToolLedger has nothing to send outside a request's own response
 *       stream, and an idle standing stream would hold every graceful shutdown for its whole grace.
 *       The SDK's client takes the 405 to mean request-response mode.
 * </ul>
 */
final class McpGate extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** The request attribute that carries the authenticated {@link Principal}. */
  static final String PRINCIPAL_ATTRIBUTE = McpGate.class.getName() + ".principal";

  private final transient Tokens tokens;

  McpGate(Tokens tokens) {
    this.tokens = tokens;
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Optional<Problem> several = AuthorizationHeader.several(request);
    if (several.isPresent()) {
      problem(response, several.get());
      return;
    }
    Optional<Principal> principal = tokens.authenticateHeader(request.getHeader("Authorization"));
    if (principal.isEmpty()) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"toolledger\"");
      problem(
          response,
          Problem.of(
              ProblemType.UNAUTHORIZED,
              "send 'Authorization: Bearer <token>' with a token from 'toolledger tokens create'"));
      return;
    }
    if (principal.get().isOperator()) {
      problem(
          response,
          Problem.of(
              ProblemType.FORBIDDEN,
              "an operator token acts for no tenant and is not accepted by MCP; use a tenant's"
                  + " token"));
      return;
    }
    if ("GET".equals(request.getMethod())) {
      response.setHeader("Allow", "POST, DELETE");
      problem(
          response,
          Problem.of(
              ProblemType.METHOD_NOT_ALLOWED,
              "this MCP endpoint offers no standing SSE stream; POST requests, DELETE a session"));
      return;
    }
    request.setAttribute(PRINCIPAL_ATTRIBUTE, principal.get());
    chain.doFilter(request, response);
  }

  private static void problem(HttpServletResponse response, Problem problem) throws IOException {
    byte[] body = Json.write(problem.toJson()).getBytes(StandardCharsets.UTF_8);
    response.setStatus(problem.status());
    response.setHeader("Cache-Control", "no-store");
    response.setContentType("application/problem+json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
