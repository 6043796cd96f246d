package dev.toolledger.core.engine;

import dev.toolledger.protocol.StoredResponse;
import java.util.Objects;

/** What a caller or an operator asks of {@link LedgerEngine#resolve}. */
public sealed interface Resolution {

  /**
   * "I give up on this key": for a key never seen, record {@code NOT_EXECUTED} so that a late
   * request with it is refused; for a known key, just report its state and outcome.
   */
  record Inquiry() implements Resolution {}

  /**
   * An operator's finding that an {@code UNKNOWN} operation's effect did happen, with its outcome.
   */
  record MarkCompleted(StoredResponse response, String reason) implements Resolution {
    public MarkCompleted {
      Objects.requireNonNull(response, "response");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** An operator's finding that an {@code UNKNOWN} operation's effect did not happen. */
  record MarkNotExecuted(String reason) implements Resolution {
    public MarkNotExecuted {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
