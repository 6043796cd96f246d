package dev.toolledger.server.auth;

import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Enumeration;
import java.util.Optional;

/**
 * The one {@code Authorization} header of a request. A request with several is refused rather than
 * authenticated by the first: proxies and servers disagree on which of several credentials counts
 * (the first, the last, or the values joined), so accepting one would let a request be read as
 * coming from one caller here and another elsewhere. The same rule as for several {@code
 * Idempotency-Key} headers.
 */
public final class AuthorizationHeader {
  private AuthorizationHeader() {}

  /**
   * The problem to answer when the request carries more than one {@code Authorization} header;
   * empty when it carries one or none.
   */
  public static Optional<Problem> several(HttpServletRequest request) {
    Enumeration<String> values = request.getHeaders("Authorization");
    if (values == null || !values.hasMoreElements()) {
      return Optional.empty();
    }
    values.nextElement();
    if (!values.hasMoreElements()) {
      return Optional.empty();
    }
    return Optional.of(
        Problem.of(
            ProblemType.INVALID_AUTHORIZATION,
            "send exactly one Authorization header; this request has several, and none of them"
                + " was used"));
  }
}
