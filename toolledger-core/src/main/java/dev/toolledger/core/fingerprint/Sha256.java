package dev.toolledger.core.fingerprint;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * This thread's SHA-256 digest. Fingerprints, downstream keys, event ids, PostgreSQL's key locks
 * and token hashes are each one SHA-256 on the request path, and looking the algorithm up ({@code
 * MessageDigest.getInstance}) cost more than the hash itself (a JFR profile of {@code
 * http-replay}); one digest per thread is looked up once.
 */
public final class Sha256 {
  private static final ThreadLocal<MessageDigest> DIGEST =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 is required by the Java platform", e);
            }
          });

  private Sha256() {}

  /**
   * The calling thread's digest, reset. Finish with {@code digest()} before calling this again on
   * the same thread: the next call hands out the same instance.
   */
  public static MessageDigest digest() {
    MessageDigest sha = DIGEST.get();
    sha.reset();
    return sha;
  }
}
