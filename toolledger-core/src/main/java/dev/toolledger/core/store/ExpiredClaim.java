package dev.toolledger.core.store;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.protocol.OperationKey;
import java.util.Objects;

/**
 * An {@code IN_PROGRESS} claim whose lease ran out by the database's clock.
 *
 * @param downstreamKey the downstream key stored with the claim, or null for a claim made before
 *     the ledger stored them
 */
public record ExpiredClaim(
    TenantId tenant,
    OperationKey key,
    OperationIntent intent,
    long fence,
    String owner,
    String parameters,
    String downstreamKey) {
  /** A claim without a stored downstream key. */
  public ExpiredClaim(
      TenantId tenant,
      OperationKey key,
      OperationIntent intent,
      long fence,
      String owner,
      String parameters) {
    this(tenant, key, intent, fence, owner, parameters, null);
  }

  /** Checks the required fields. */
  public ExpiredClaim {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(intent, "intent");
  }
}
