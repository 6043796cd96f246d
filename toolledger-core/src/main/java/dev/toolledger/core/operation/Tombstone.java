package dev.toolledger.core.operation;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.protocol.OperationKey;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What stays of an operation after its record expired and was swept: enough to refuse a late retry
 * of its key ({@code 410 operation-expired}) instead of executing it as a new operation, and
 * nothing of its outcome.
 *
 * @param tool the operation's tool, or empty for a key that was fenced before any request came
 * @param fingerprint the operation's fingerprint, or empty for such a fence
 * @param expiredAt when the record's retention ended (the expiry it was stored with)
 * @param until when the tombstone ends; from then on the key is new again
 */
public record Tombstone(
    TenantId tenant,
    OperationKey key,
    Optional<String> tool,
    Optional<Fingerprint> fingerprint,
    Instant expiredAt,
    Instant until) {
  public Tombstone {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(expiredAt, "expiredAt");
    Objects.requireNonNull(until, "until");
  }

  /** Whether the tombstone still guards its key at {@code now}. */
  public boolean isLiveAt(Instant now) {
    return now.isBefore(until);
  }
}
