package dev.toolledger.server.answer;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.StoredResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What the ledger answers a caller, before any transport has framed it: HTTP writes it as a status,
 * headers and a JSON or RFC 9457 problem body; MCP as a tool result with {@code isError}, {@code
 * structuredContent} and {@code _meta}. {@link Answers} decides every answer once, so the two
 * transports cannot drift apart on a status, a problem type, a Retry-After or a state.
 */
public sealed interface Answer {

  /** The HTTP status of the answer; MCP carries it as the problem's or recording's status. */
  int status();

  /** The operation's state when the answer is about one, so that a caller need not look it up. */
  Optional<OperationState> state();

  /** When the same call with the same key may be made again, if the answer says so. */
  Optional<Duration> retryAfter();

  /**
   * A recorded outcome, executed now or replayed: the stored status and body, verbatim. A status of
   * 400 or more is the tool's own recorded refusal, not an error of the ledger.
   */
  record Recorded(StoredResponse response, boolean replayed) implements Answer {
    public Recorded {
      Objects.requireNonNull(response, "response");
    }

    @Override
    public int status() {
      return response.status();
    }

    @Override
    public Optional<OperationState> state() {
      return Optional.of(OperationState.COMPLETED);
    }

    @Override
    public Optional<Duration> retryAfter() {
      return Optional.empty();
    }
  }

  /**
   * A problem of the ledger's own (type, title, detail and extension members): this call recorded
   * nothing, or the key's record is not an outcome that may be replayed.
   */
  record Refused(Problem problem, Optional<OperationState> state, Optional<Duration> retryAfter)
      implements Answer {
    public Refused {
      Objects.requireNonNull(problem, "problem");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(retryAfter, "retryAfter");
    }

    /** A problem about no operation in particular, with no time to come back. */
    public static Refused of(Problem problem) {
      return new Refused(problem, Optional.empty(), Optional.empty());
    }

    @Override
    public int status() {
      return problem.status();
    }
  }

  /** An operation as a lookup shows it ({@code OperationJson}): always a success. */
  record Found(ObjectNode body, OperationState operationState) implements Answer {
    public Found {
      Objects.requireNonNull(body, "body");
      Objects.requireNonNull(operationState, "operationState");
    }

    @Override
    public int status() {
      return 200;
    }

    @Override
    public Optional<OperationState> state() {
      return Optional.of(operationState);
    }

    @Override
    public Optional<Duration> retryAfter() {
      return Optional.empty();
    }
  }
}
