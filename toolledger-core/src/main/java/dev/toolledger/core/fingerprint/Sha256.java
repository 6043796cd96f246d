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
  /**
   * Looked up once; each thread's digest is a clone of it. A new thread's first hash used to look
   * the algorithm up again through the providers, which showed in a JFR profile of {@code
   * keyed-create} (the harness starts its threads anew for each slice, as a server may for
   * requests).
   */
  private static final MessageDigest PROTOTYPE = lookUp();

  private static final ThreadLocal<MessageDigest> DIGEST =
      ThreadLocal.withInitial(
          () -> {
            try {
              return (MessageDigest) PROTOTYPE.clone();
            } catch (CloneNotSupportedException e) {
              return lookUp();
            }
          });

  private static MessageDigest lookUp() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

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
