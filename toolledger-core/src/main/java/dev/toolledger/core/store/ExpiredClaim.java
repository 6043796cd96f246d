package dev.toolledger.core.store;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.operation.OperationIntent;
import java.util.Objects;

/** An {@code IN_PROGRESS} claim whose lease ran out by the database's clock. */
public record ExpiredClaim(
    TenantId tenant,
    OperationKey key,
    OperationIntent intent,
    long fence,
    String owner,
    String parameters) {
  public ExpiredClaim {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(intent, "intent");
  }
}
