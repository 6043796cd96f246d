package dev.toolledger.server.http;

import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The refusal of a request that the token's scopes do not allow. */
final class Scopes {
  private Scopes() {}

  /**
   * Answers 403 unless {@code allowed}.
   *
   * @param needs the scopes the request needs, as the refusal names them
   * @return {@code allowed}
   */
  static boolean check(
      boolean allowed, String needs, Principal principal, HttpServletResponse response)
      throws IOException {
    if (!allowed) {
      HttpFrame.problem(
              Problem.of(
                  ProblemType.FORBIDDEN,
                  "this token may not do this: it needs "
                      + needs
                      + " (its scopes: "
                      + principal.scopes()
                      + ")"))
          .writeTo(response);
    }
    return allowed;
  }
}
