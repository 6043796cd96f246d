package dev.toolledger.core.store;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.protocol.OperationKey;
import java.time.Instant;
import java.util.Objects;

/** The claim a caller makes on a key before it executes. */
public record NewOperation(
    TenantId tenant, OperationKey key, OperationIntent intent, Instant createdAt) {
  public NewOperation {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(createdAt, "createdAt");
  }
}
