package dev.toolledger.client;

import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** What {@code GET /v1/operations/{key}} said about a key. */
public sealed interface LookupResult {

  OperationKey key();

  /**
   * The server holds a record for the key.
   *
   * @param tool the tool it was recorded for; empty for a key fenced before any request arrived
   * @param state {@link OperationState#COMPLETED} carries {@code response}; {@link
   *     OperationState#IN_PROGRESS} is being executed; {@link OperationState#UNKNOWN} and {@link
   *     OperationState#NOT_EXECUTED} are an operator's business
   * @param response the recorded response, present exactly for {@link OperationState#COMPLETED}
   */
  record Found(
      OperationKey key,
      Optional<String> tool,
      OperationState state,
      Optional<StoredResponse> response,
      Instant createdAt,
      Optional<Instant> completedAt,
      Optional<Instant> expiresAt)
      implements LookupResult {
    public Found {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(response, "response");
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(completedAt, "completedAt");
      Objects.requireNonNull(expiresAt, "expiresAt");
    }

    @Override
    public String toString() {
      return "Found[" + key + ", tool=" + tool.orElse("-") + ", state=" + state + "]";
    }
  }

  /**
   * The server holds no record for the key in the caller's tenant: it never saw the key, the only
   * attempt was rolled back, or the record expired after the tool's retention.
   */
  record NotFound(OperationKey key) implements LookupResult {
    public NotFound {
      Objects.requireNonNull(key, "key");
    }
  }

  /** The lookup itself got no answer (server unreachable, busy, or the request refused). */
  record Unavailable(OperationKey key, String reason) implements LookupResult {
    public Unavailable {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
