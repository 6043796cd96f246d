package dev.toolledger.client;

import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.identity.OperationKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Names keys in the client's log lines: HMAC-SHA256 over the key with a random secret of this
 * process, {@value KeyHasher#HEX_DIGITS} hex digits. It correlates the lines of one process and
 * lets no reader confirm a guessed key, as the server's {@link KeyHasher} does; it does not match
 * the server's hashes (the client has no access to the ledger's secret), nor the lines of an
 * earlier run.
 */
final class LogKeys {
  private static final byte[] SECRET = KeyHasher.newSecret();

  private LogKeys() {}

  static String of(OperationKey key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
      byte[] digest = mac.doFinal(key.value().getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(digest, 0, KeyHasher.HEX_DIGITS / 2);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required by the Java platform", e);
    }
  }
}
