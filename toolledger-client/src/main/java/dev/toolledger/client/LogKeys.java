package dev.toolledger.client;

import dev.toolledger.protocol.OperationKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Names keys in the client's log lines: HMAC-SHA256 over the key with a random secret of this
 * process, {@value #HEX_DIGITS} hex digits, the length of the server's key hashes. It correlates
 * the lines of one process and lets no reader confirm a guessed key, as the server's hashes do; it
 * does not match the server's hashes (the client has no access to the ledger's secret), nor the
 * lines of an earlier run.
 */
final class LogKeys {
  /** Hex digits of a name: 64 bits, like the server's. */
  static final int HEX_DIGITS = 16;

  private static final byte[] SECRET = newSecret();

  private LogKeys() {}

  static String of(OperationKey key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
      byte[] digest = mac.doFinal(key.value().getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(digest, 0, HEX_DIGITS / 2);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required by the Java platform", e);
    }
  }

  private static byte[] newSecret() {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    return secret;
  }
}
