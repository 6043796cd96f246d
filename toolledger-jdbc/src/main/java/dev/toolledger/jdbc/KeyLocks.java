package dev.toolledger.jdbc;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Sha256;
import dev.toolledger.core.identity.OperationKey;
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

  /**
   * Sets the transaction's {@code lock_timeout} to the claim's wait, bound as text ({@link
   * #waitOf}): the statement before {@link #LOCK}, in the same round trip. The claim's wait belongs
   * to the ledger's lock alone: {@link #UNWAIT} follows the ledger's statements.
   */
  static final String WAIT = "SELECT set_config('lock_timeout', ?, true)";

  /**
   * Gives the rest of the transaction (the tool's statements) the database's {@code lock_timeout}
   * back (the server's, the database's or the role's setting, or the URL's {@code options}; none by
   * default): the last statement of a claim's round trip, skipped by the server when the claim
   * failed.
   */
  static final String UNWAIT = "SET LOCAL lock_timeout TO DEFAULT";

  /** {@code statements} (one or more, beginning with {@link #LOCK}) bounded by the claim's wait. */
  static String bounded(String statements) {
    return WAIT + "; " + statements + "; " + UNWAIT;
  }

  /**
   * The claim's wait as a {@code lock_timeout} value, at least 1 ms: PostgreSQL reads 0 as "wait
   * forever", the opposite of what a zero wait asks for.
   */
  static String waitOf(java.time.Duration wait) {
    return Math.max(1, Math.min(Integer.MAX_VALUE, wait.toMillis())) + "ms";
  }

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
