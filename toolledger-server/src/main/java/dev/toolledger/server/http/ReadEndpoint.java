package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.server.auth.Principal;
import java.util.Map;

/**
 * An authenticated {@code GET} endpoint that a tool module adds beside the ledger's own API, for
 * example {@code GET /v1/notes}. It must only return data of the principal's tenant.
 */
public interface ReadEndpoint {

  /** The exact path, for example {@code /v1/notes}. */
  String path();

  /**
   * Answers one read request.
   *
   * @param query the request's query parameters (first value of each)
   * @throws IllegalArgumentException for a bad query parameter; answered as 400 with the message
   */
  JsonNode read(Principal principal, Map<String, String> query);

  /** A read that the server refuses to answer, answered as this problem. */
  final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient dev.toolledger.protocol.Problem problem;

    public Refused(dev.toolledger.protocol.Problem problem) {
      super(problem.detail());
      this.problem = problem;
    }

    public dev.toolledger.protocol.Problem problem() {
      return problem;
    }
  }
}
