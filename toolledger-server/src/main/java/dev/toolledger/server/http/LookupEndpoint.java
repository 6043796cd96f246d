package dev.toolledger.server.http;

import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.auth.Principal;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** {@code GET /v1/operations/{key}}: an operation of the caller's tenant, with its history. */
final class LookupEndpoint {
  private final LedgerEngine engine;

  LookupEndpoint(LedgerEngine engine) {
    this.engine = engine;
  }

  /**
   * @param rawKey the key's path segment, still percent-encoded
   */
  void serve(Principal principal, String rawKey, HttpServletResponse response) throws IOException {
    OperationKey key;
    try {
      key = OperationKey.of(Paths.decodeSegment(rawKey));
    } catch (InvalidOperationKeyException | IllegalArgumentException e) {
      HttpFrame.of(Answers.invalidKey(e.getMessage())).writeTo(response);
      return;
    }
    HttpFrame.of(Answers.lookup(engine, principal.tenant(), key)).writeTo(response);
  }
}
