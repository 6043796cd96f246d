package dev.toolledger.server.operations;

import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;

/** Problem documents about an operation that HTTP and MCP answer alike. */
public final class OperationProblems {
  private OperationProblems() {}

  /**
   * {@code 410 operation-expired}: the key's record was swept after its retention; its outcome is
   * gone and nothing was executed. Names when the retention ended ({@code expiredAt}); says nothing
   * of the outcome, which the ledger no longer has.
   */
  public static Problem expired(Tombstone tombstone) {
    return Problem.of(
            ProblemType.EXPIRED,
            "this key's operation ended long ago and its record was removed when its retention"
                + " ended; its outcome is no longer available, and nothing was executed. A new"
                + " action needs a new key")
        .with(
            "expiredAt", Json.mapper().getNodeFactory().textNode(tombstone.expiredAt().toString()));
  }
}
