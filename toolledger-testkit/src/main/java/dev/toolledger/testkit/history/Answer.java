package dev.toolledger.testkit.history;

import java.util.Objects;

/** What a client got back for one request: an HTTP answer, or none at all. */
public sealed interface Answer {

  /**
   * An HTTP answer.
   *
   * @param status the status code
   * @param body the body, exactly as received
   * @param recorded whether it carried {@code Idempotent-Replayed}: the ledger's recorded outcome
   *     of the key, first execution or replay
   * @param replayed whether {@code Idempotent-Replayed} was {@code true}
   */
  record Heard(int status, String body, boolean recorded, boolean replayed) implements Answer {
    public Heard {
      Objects.requireNonNull(body, "body");
      if (status < 100 || status > 599) {
        throw new IllegalArgumentException("status must be an HTTP status, not " + status);
      }
      if (replayed && !recorded) {
        throw new IllegalArgumentException("a replayed answer is a recorded one");
      }
    }

    /** A recorded success: the client was told the operation happened. */
    public boolean acknowledged() {
      return recorded && status >= 200 && status < 300;
    }
  }

  /**
   * No answer: the connection was refused, reset or closed, or the client's timeout ran out.
   *
   * @param reason what the client saw, for the report
   */
  record None(String reason) implements Answer {
    public None {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * Whether the answer leaves the caller not knowing if the operation happened: no answer, or an
   * answer that is not a recorded outcome and says "try again" or "unknown" (408, 409, 429, 5xx).
   */
  default boolean leavesOutcomeOpen() {
    if (this instanceof Heard heard) {
      int s = heard.status();
      return !heard.recorded() && (s == 408 || s == 409 || s == 429 || s >= 500);
    }
    return true;
  }
}
