package dev.toolledger.jdbc.ops;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One operation as an operator lists it: where it stands, without its parameters or response.
 *
 * @param tool absent only for a key fenced before any request for it arrived
 * @param status the recorded response status, present for {@code COMPLETED} operations
 * @param owner the node holding the claim of an external operation, if any
 * @param leaseUntil when that claim's lease ends (by the database's clock)
 * @param fence the fencing token in force
 */
public record OperationSummary(
    TenantId tenant,
    OperationKey key,
    Optional<String> tool,
    OperationState state,
    Optional<Integer> status,
    Instant createdAt,
    Optional<Instant> completedAt,
    Optional<String> owner,
    Optional<Instant> leaseUntil,
    long fence) {
  public OperationSummary {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(completedAt, "completedAt");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(leaseUntil, "leaseUntil");
  }
}
