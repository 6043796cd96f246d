package dev.toolledger.core.operation;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One operation as the ledger stores it.
 *
 * @param intent what was asked; absent only for a key fenced as {@link OperationState#NOT_EXECUTED}
 *     before any request for it arrived
 * @param response the recorded outcome; present exactly when the state is {@link
 *     OperationState#COMPLETED}
 * @param completedAt when the operation reached a final state, if it has
 * @param expiresAt when the record may be swept, if it has a final state
 */
public record OperationRecord(
    TenantId tenant,
    OperationKey key,
    Optional<OperationIntent> intent,
    OperationState state,
    Optional<StoredResponse> response,
    Instant createdAt,
    Optional<Instant> completedAt,
    Optional<Instant> expiresAt) {

  public OperationRecord {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(completedAt, "completedAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
    if ((state == OperationState.COMPLETED) != response.isPresent()) {
      throw new IllegalArgumentException("a response is recorded exactly for COMPLETED operations");
    }
    if (intent.isEmpty() && state != OperationState.NOT_EXECUTED) {
      throw new IllegalArgumentException("only a NOT_EXECUTED fence may lack an intent");
    }
  }

  /** The tool's name, or empty for a fence. */
  public Optional<String> tool() {
    return intent.map(OperationIntent::tool);
  }
}
