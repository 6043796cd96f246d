package dev.toolledger.server.http;

import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Refuses a request whose {@code Origin} header names a web origin that is not allowed, with {@code
 * 403} {@code forbidden-origin}, before anything else looks at it: the MCP specification's defence
 * against DNS rebinding (a page in the user's browser reaching a server on loopback), and a CSRF
 * defence for the console and every state-changing endpoint.
 *
 * <p>Requests without an {@code Origin} header (curl, SDK clients, agents, a browser's own
 * navigation) are not affected. With no configured origin, the allowed ones are the server's own on
 * loopback: {@code http://127.0.0.1:PORT}, {@code http://localhost:PORT} and {@code
 * http://[::1]:PORT}, where PORT is the port the request arrived on. {@code *} allows every origin.
 */
public final class OriginCheck extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** The value that allows every origin. */
  public static final String ANY = "*";

  private final Set<String> allowed;
  private final boolean any;

  /**
   * @param allowed normalized origins (see {@link #normalize}); empty: the server's own on loopback
   */
  public OriginCheck(Set<String> allowed) {
    this.allowed = Set.copyOf(allowed);
    this.any = allowed.contains(ANY);
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    var origins = request.getHeaders("Origin");
    while (origins.hasMoreElements()) {
      String origin = origins.nextElement();
      if (!allows(origin, request.getLocalPort())) {
        refuse(response);
        return;
      }
    }
    chain.doFilter(request, response);
  }

  boolean allows(String origin, int localPort) {
    if (any) {
      return true;
    }
    Optional<String> normalized = normalize(origin);
    if (normalized.isEmpty()) {
      return false; // "null" (an opaque origin) and anything unparseable
    }
    if (!allowed.isEmpty()) {
      return allowed.contains(normalized.get());
    }
    return normalized.get().equals("http://127.0.0.1:" + localPort)
        || normalized.get().equals("http://localhost:" + localPort)
        || normalized.get().equals("http://[::1]:" + localPort);
  }

  /**
   * An origin as {@code scheme://host[:port]} in lower case, without a default port ({@code 80} for
   * http, {@code 443} for https); empty when {@code origin} is not an http(s) origin of that form.
   */
  public static Optional<String> normalize(String origin) {
    if (origin == null) {
      return Optional.empty();
    }
    URI uri;
    try {
      uri = new URI(origin.strip());
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https"))
        || uri.getHost() == null
        || uri.getRawUserInfo() != null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      return Optional.empty();
    }
    int port = uri.getPort();
    boolean defaultPort =
        port == -1
            || (scheme.equals("http") && port == 80)
            || (scheme.equals("https") && port == 443);
    return Optional.of(
        scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port));
  }

  /**
   * Checks configured origins: each must be {@value #ANY} or an http(s) origin.
   *
   * @throws IllegalArgumentException naming the first bad value
   */
  public static Set<String> normalizeAll(Set<String> origins) {
    Set<String> normalized = new LinkedHashSet<>();
    for (String origin : origins) {
      if (ANY.equals(origin)) {
        normalized.add(ANY);
        continue;
      }
      normalized.add(
          normalize(origin)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "allowedOrigin must be an origin such as https://console.example.com"
                              + " (scheme, host and optional port, no path) or *, not '"
                              + origin
                              + "'")));
    }
    return normalized;
  }

  private static void refuse(HttpServletResponse response) throws IOException {
    Problem problem =
        Problem.of(
            ProblemType.FORBIDDEN_ORIGIN,
            "requests from this web origin are not accepted; a browser page may reach this server"
                + " only from an origin its operator allowed (serve --allowed-origin ORIGIN)."
                + " Clients that are not browsers send no Origin header");
    HttpFrame.problem(problem).writeTo(response);
  }
}
