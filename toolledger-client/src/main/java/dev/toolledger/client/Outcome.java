package dev.toolledger.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.OperationKey;
import java.util.Objects;

/**
 * How one action ended, as far as the client can know. Exactly three things can be true:
 *
 * <ul>
 *   <li>{@link Completed}: the server recorded an outcome for the key, a success or a recorded
 *       business error (for example a quota refusal), and this is it. Final.
 *   <li>{@link Rejected}: the server refused the request definitively and did nothing (bad
 *       parameters, bad token, unknown tool, a key fenced as not executed). Final for this action;
 *       a corrected attempt is a new action with a new step id.
 *   <li>{@link Unknown}: no definitive answer arrived (lost responses, timeouts, the server busy or
 *       down until attempts or the deadline ran out), or the server itself holds the outcome as
 *       unknown. The effect may or may not have happened. It is <b>not</b> failure: do not guess
 *       and do not send the action again under a new key. Look the key up, {@link
 *       ToolLedgerClient#resume resume} later, or hand the key to a human. The journal keeps it.
 * </ul>
 */
public sealed interface Outcome {

  /** The action's operation key, as minted by the journal. */
  OperationKey key();

  /**
   * A recorded outcome.
   *
   * @param status the recorded HTTP status (201, or for a recorded business error 4xx/5xx)
   * @param body the recorded JSON body
   * @param replayed true when this call did not cause the execution: the server replayed an outcome
   *     recorded earlier (for example after a lost response), or it came from a lookup or the
   *     journal
   */
  record Completed(OperationKey key, int status, JsonNode body, boolean replayed)
      implements Outcome {
    public Completed {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(body, "body");
      body = body.deepCopy();
    }

    @Override
    public JsonNode body() {
      return body.deepCopy();
    }

    /** Whether the recorded outcome is a success (status below 400). */
    public boolean isSuccess() {
      return status < 400;
    }

    /** Without the body, which may be sensitive. */
    @Override
    public String toString() {
      return "Completed[" + key + ", status=" + status + ", replayed=" + replayed + "]";
    }
  }

  /** A definitive refusal after which nothing happened. */
  record Rejected(OperationKey key, ProblemDetails problem) implements Outcome {
    public Rejected {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(problem, "problem");
    }

    @Override
    public String toString() {
      return "Rejected[" + key + ", " + problem + "]";
    }
  }

  /**
   * No definitive answer.
   *
   * @param reason what was tried and why it stopped, for logs and for a human; no secrets
   */
  record Unknown(OperationKey key, String reason) implements Outcome {
    public Unknown {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
