package dev.toolledger.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/** Operators are whoever presents one shared secret (from {@code TOOLLEDGER_OPERATOR_TOKEN}). */
final class SharedSecretOperators implements OperatorAuthenticator {
  /** The shortest secret accepted: anything shorter is guessable. */
  static final int MIN_LENGTH = 16;

  private static final Operator OPERATOR = new Operator("operator:shared-secret");

  private final byte[] secretHash;

  SharedSecretOperators(String secret) {
    if (secret == null || secret.strip().length() < MIN_LENGTH) {
      throw new IllegalArgumentException(
          "the operator token must be at least " + MIN_LENGTH + " characters");
    }
    this.secretHash = sha256(secret.strip());
  }

  @Override
  public Optional<Operator> authenticate(String authorization) {
    if (authorization == null
        || authorization.length() < 7
        || authorization.length() > 1000
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    // Hashes have one length, so the comparison takes the same time for every guess.
    return MessageDigest.isEqual(secretHash, sha256(authorization.substring(7).strip()))
        ? Optional.of(OPERATOR)
        : Optional.empty();
  }

  @Override
  public boolean configured() {
    return true;
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  @Override
  public String toString() {
    return "SharedSecretOperators[secret withheld]";
  }
}
