package dev.toolledger.jdbc;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Sha256;
import dev.toolledger.protocol.OperationKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * PostgreSQL's transaction-scoped advisory lock of an operation key: every path that may create a
 * key's record (a transactional claim, a leased claim, an inquiry's fence) takes it first, so a
 * second claimer of a key waits for the first one's transaction to end and then reads what it
 * committed. The lock is named by the first 64 bits of SHA-256 over the tenant and the key; two
 * keys that share a name only wait for each other, and the primary key of {@code tl_operations}
 * still decides which record exists. The lock is released at commit or rollback, never held by an
 * idle session.
 */
final class KeyLocks {
  /** Waits for the key's lock; subject to the transaction's {@code lock_timeout}. */
  static final String LOCK = "SELECT pg_advisory_xact_lock(?)";

  private KeyLocks() {}

  static long of(TenantId tenant, OperationKey key) {
    MessageDigest sha = Sha256.digest();
    sha.update(tenant.value().getBytes(StandardCharsets.UTF_8));
    // A NUL cannot appear in a tenant, so ("ab", "c") and ("a", "bc") name different locks.
    sha.update((byte) 0);
    sha.update(key.value().getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(sha.digest()).getLong();
  }
}
