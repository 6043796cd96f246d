package dev.toolledger.server.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Reads what is left of a request body once the request has been answered, for every endpoint at
 * once: the origin check, the API, the MCP gate and the console all refuse some requests on their
 * headers alone (a foreign origin, no token, no idempotency key) without reading the body.
 *
 * <p>Why it matters: a connection whose request body is still unread when the answer is out is
 * closed by Jetty after the answer. A client that has already taken the connection back into its
 * pool then sees its next request die on it ("header parser received no bytes"), and for a POST it
 * must not retry that blindly. Reading the body (up to {@link BoundedBody}'s bound; past it the
 * connection is closed as before) keeps the connection usable. A body already read costs nothing.
 *
 * <p>The outermost filter, so that it runs after every other one has answered.
 */
public final class UnreadBodyDrain extends HttpFilter {
  private static final long serialVersionUID = 1L;

  private final int maxRequestBytes;

  /**
   * @param maxRequestBytes the server's request body limit, which sets the drain's bound
   */
  public UnreadBodyDrain(int maxRequestBytes) {
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    try {
      chain.doFilter(request, response);
    } finally {
      if (!request.isAsyncStarted()) {
        BoundedBody.discardUnread(request, maxRequestBytes);
      }
    }
  }
}
