package dev.toolledger.server.http;

import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.answer.Channel;
import dev.toolledger.server.answer.Failures;
import dev.toolledger.server.answer.Printable;
import dev.toolledger.server.auth.AuthorizationHeader;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API's front door: authenticates, routes, and answers what an endpoint throws. The
 * endpoints are one class each ({@link CallToolEndpoint}, {@link LookupEndpoint}, {@link
 * ResolveEndpoint}, {@link ToolsEndpoint}, {@link ReadViews}, {@link HealthEndpoint}); all of them
 * answer through {@link HttpFrame}, so every error is an RFC 9457 problem document with a stable
 * type and every recorded outcome carries {@code Idempotent-Replayed: true|false}.
 *
 * <p>Authorization runs on every request, before anything about a key is looked at, so that its
 * answer never depends on whether the key exists: a tool call (or replay) needs the tool's scope, a
 * lookup {@code read}, an explicit resolution {@code resolve}. Operator tokens act for no tenant
 * and are refused here.
 */
public final class ApiServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ApiServlet.class);

  private static final String TOOLS = "/v1/tools";
  private static final String TOOLS_PREFIX = "/v1/tools/";
  private static final String OPERATIONS_PREFIX = "/v1/operations/";
  private static final String RESOLVE_SUFFIX = "/resolve";

  private final transient Tokens tokens;
  private final transient CallToolEndpoint calls;
  private final transient LookupEndpoint lookups;
  private final transient ResolveEndpoint resolutions;
  private final transient ToolsEndpoint tools;
  private final transient ReadViews reads;
  private final transient HealthEndpoint health;

  public ApiServlet(
      LedgerEngine engine,
      Tokens tokens,
      List<ReadEndpoint> reads,
      HealthCheck health,
      int maxRequestBytes) {
    this.tokens = tokens;
    this.calls = new CallToolEndpoint(engine, maxRequestBytes);
    this.lookups = new LookupEndpoint(engine);
    this.resolutions = new ResolveEndpoint(engine, maxRequestBytes);
    this.reads = new ReadViews(reads);
    this.tools = new ToolsEndpoint(engine, this.reads.paths());
    this.health = new HealthEndpoint(health);
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = pathWithin(request);
    String method = request.getMethod();
    try {
      route(path, method, request, response);
    } catch (RuntimeException e) {
      String where = "on " + Printable.name(method) + " " + Paths.template(path);
      HttpFrame.of(Failures.answer(LOG, e, Channel.HTTP, null, where)).writeTo(response);
    }
  }

  private void route(
      String path, String method, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (path.equals("/health")) {
      if (requireMethod(method, "GET", response)) {
        health.serve(response);
      }
      return;
    }
    if (path.equals(OpenApiDocument.PATH) && request.getHeader("Authorization") == null) {
      if (requireMethod(method, "GET", response)) {
        ToolsEndpoint.anonymousOpenApi(response);
      }
      return;
    }
    Optional<Problem> several = AuthorizationHeader.several(request);
    if (several.isPresent()) {
      HttpFrame.problem(several.get()).writeTo(response);
      return;
    }
    Optional<Principal> authenticated =
        tokens.authenticateHeader(request.getHeader("Authorization"));
    if (authenticated.isEmpty()) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"toolledger\"");
      HttpFrame.problem(
              Problem.of(
                  ProblemType.UNAUTHORIZED,
                  "send 'Authorization: Bearer <token>' with a token from 'toolledger tokens"
                      + " create'"))
          .writeTo(response);
      return;
    }
    Principal principal = authenticated.get();
    if (principal.isOperator()) {
      HttpFrame.problem(
              Problem.of(
                  ProblemType.FORBIDDEN,
                  "an operator token acts for no tenant and is not accepted by the tenant API;"
                      + " use a tenant's token here"))
          .writeTo(response);
      return;
    }
    if (path.startsWith(TOOLS_PREFIX)) {
      if (requireMethod(method, "POST", response)) {
        calls.serve(
            principal,
            Paths.decodeSegment(path.substring(TOOLS_PREFIX.length())),
            request,
            response);
      }
    } else if (path.equals(TOOLS)) {
      if (requireMethod(method, "GET", response)) {
        tools.list(principal, response);
      }
    } else if (path.startsWith(OPERATIONS_PREFIX)) {
      // The key is one path segment; a key holding '/' must be sent percent-encoded.
      String rest = path.substring(OPERATIONS_PREFIX.length());
      int slash = rest.indexOf('/');
      if (slash < 0) {
        if (requireMethod(method, "GET", response)
            && Scopes.check(principal.mayRead(), "read", principal, response)) {
          lookups.serve(principal, rest, response);
        }
      } else if (rest.substring(slash).equals(RESOLVE_SUFFIX)) {
        if (requireMethod(method, "POST", response)) {
          resolutions.serve(principal, rest.substring(0, slash), request, response);
        }
      } else {
        notFound(path, response);
      }
    } else if (path.equals(OpenApiDocument.PATH)) {
      if (requireMethod(method, "GET", response)) {
        tools.openApi(principal, response);
      }
    } else if (reads.serves(path)) {
      if (requireMethod(method, "GET", response)
          && Scopes.check(principal.mayRead(), "read", principal, response)) {
        reads.serve(path, principal, request, response);
      }
    } else {
      notFound(path, response);
    }
  }

  /**
   * The request's path below where the API is mounted, still percent-encoded (an operation key may
   * hold an encoded '/'): the whole URI on ToolLedger's own server, the part after {@code
   * /toolledger} when an application maps the servlet to {@code /toolledger/*}.
   */
  private static String pathWithin(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String mount = request.getContextPath() + request.getServletPath();
    return !mount.isEmpty() && uri.startsWith(mount) ? uri.substring(mount.length()) : uri;
  }

  private static boolean requireMethod(String method, String allowed, HttpServletResponse response)
      throws IOException {
    if (method.equals(allowed)) {
      return true;
    }
    response.setHeader("Allow", allowed);
    HttpFrame.problem(
            Problem.of(ProblemType.METHOD_NOT_ALLOWED, "use " + allowed + " on this resource"))
        .writeTo(response);
    return false;
  }

  private static void notFound(String path, HttpServletResponse response) throws IOException {
    HttpFrame.problem(Problem.of(ProblemType.NOT_FOUND, "no resource at " + path))
        .writeTo(response);
  }
}
