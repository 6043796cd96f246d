package dev.toolledger.core.outbox;

import dev.toolledger.api.TenantId;
import java.net.URI;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** An outbox event as stored. */
public record OutboxEvent(
    String id,
    TenantId tenant,
    String topic,
    String aggregate,
    URI destination,
    String payload,
    OutboxState state,
    int attempts,
    Instant nextAttemptAt,
    Optional<String> lastError,
    Instant createdAt,
    Optional<Instant> deliveredAt) {
  public OutboxEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(lastError, "lastError");
    Objects.requireNonNull(deliveredAt, "deliveredAt");
  }
}
