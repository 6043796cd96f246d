package dev.toolledger.core.auth;

import dev.toolledger.core.identity.TenantId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A bearer token as the ledger stores it: only the SHA-256 of the secret, never the secret.
 *
 * @param id short public identifier used to list and revoke the token
 * @param secretHash lowercase hex SHA-256 of the whole token string
 */
public record TokenRecord(
    String id,
    String secretHash,
    TenantId tenant,
    String label,
    Instant createdAt,
    Optional<Instant> revokedAt) {
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  public TokenRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(secretHash, "secretHash");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(revokedAt, "revokedAt");
    if (!HEX64.matcher(secretHash).matches()) {
      throw new IllegalArgumentException("a token hash is 64 lowercase hex digits");
    }
  }

  public boolean isActive() {
    return revokedAt.isEmpty();
  }
}
