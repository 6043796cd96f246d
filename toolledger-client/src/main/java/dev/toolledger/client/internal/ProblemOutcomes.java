package dev.toolledger.client.internal;

import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.NotApi;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import java.time.Duration;
import java.util.Optional;

/**
 * What an attempt that got a ToolLedger problem document (and no recorded outcome) means for the
 * caller: retried, {@link Outcome.Unknown} or {@link Outcome.Rejected}. One decision for every
 * transport, so that HTTP and MCP cannot drift apart (docs/client.md has the table).
 */
@NotApi
public final class ProblemOutcomes {
  private ProblemOutcomes() {}

  /**
   * What a problem answer means for the call: an outcome to return, or a retry.
   *
   * @param problem the problem document the server sent
   * @param retryAfter when the server asked the caller to come back, if it did
   * @param via how the answer came, for the retry reason ("HTTP", "tool error")
   * @param notRecorded what to say of a 2xx answer that carries no recorded outcome
   */
  public static AttemptResult<Outcome> classify(
      OperationKey key,
      ProblemDetails problem,
      Optional<Duration> retryAfter,
      String via,
      String notRecorded) {
    int status = problem.status();
    Optional<ProblemType> type = problem.knownType();
    if (type.isPresent()) {
      switch (type.get()) {
        case OUTCOME_UNKNOWN -> {
          return AttemptResult.done(
              new Outcome.Unknown(
                  key,
                  "the server holds this operation's outcome as unknown and will not execute it"
                      + " again; resolve it with an operator"));
        }
        case NOT_EXECUTED, RESPONSE_TOO_LARGE, READ_VIEW_TOO_LARGE -> {
          // Too large: nothing was recorded and the same call would fail the same way.
          return AttemptResult.done(new Outcome.Rejected(key, problem));
        }
        case EXPIRED -> {
          return AttemptResult.done(
              new Outcome.Unknown(
                  key,
                  "the server no longer holds this operation's record ("
                      + status
                      + " operation-expired); its effect cannot be established from the server"));
        }
        default -> {}
      }
    }
    if (type.equals(Optional.of(ProblemType.IN_PROGRESS))
        || status == 408
        || status == 429
        || status >= 500) {
      return AttemptResult.retryAfter(
          via + " " + status + type.map(t -> " " + t.slug()).orElse(""), retryAfter);
    }
    if (status >= 200 && status < 300) {
      return AttemptResult.done(new Outcome.Unknown(key, notRecorded));
    }
    return AttemptResult.done(new Outcome.Rejected(key, problem));
  }
}
