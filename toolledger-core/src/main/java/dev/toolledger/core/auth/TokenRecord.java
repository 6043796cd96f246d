package dev.toolledger.core.auth;

import dev.toolledger.api.TenantId;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A bearer token as the ledger stores it: only the SHA-256 of the secret, never the secret.
 *
 * @param id short public identifier used to list and revoke the token
 * @param secretHash lowercase hex SHA-256 of the whole token string
 * @param tenant the tenant the token acts for; empty exactly for an operator token
 * @param scopes what the token may do
 */
public record TokenRecord(
    String id,
    String secretHash,
    Optional<TenantId> tenant,
    Scopes scopes,
    String label,
    Instant createdAt,
    Optional<Instant> revokedAt) {
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  public TokenRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(secretHash, "secretHash");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(scopes, "scopes");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(revokedAt, "revokedAt");
    if (!HEX64.matcher(secretHash).matches()) {
      throw new IllegalArgumentException("a token hash is 64 lowercase hex digits");
    }
    if (tenant.isEmpty() != scopes.isOperator()) {
      throw new IllegalArgumentException(
          "an operator token has no tenant, and every other token has one");
    }
  }

  public boolean isActive() {
    return revokedAt.isEmpty();
  }

  public boolean isOperator() {
    return scopes.isOperator();
  }
}
