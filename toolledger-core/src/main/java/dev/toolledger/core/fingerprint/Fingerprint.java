package dev.toolledger.core.fingerprint;

import java.util.Objects;

/**
 * SHA-256 of the canonical form of one intent: tool name, tool version and validated parameters. A
 * fingerprint is not an authorization secret; it only tells whether two requests that share a key
 * asked for the same thing.
 */
public record Fingerprint(String hex) {
  public Fingerprint {
    Objects.requireNonNull(hex, "hex");
    if (!isHex64(hex)) {
      throw new IllegalArgumentException("a fingerprint is 64 lowercase hex digits");
    }
  }

  /**
   * Whether {@code text} is 64 lowercase hex digits. A loop, not a regular expression: every
   * request makes a fingerprint and every read of a record checks one, and the regular expression
   * was a tenth of a replay's CPU time (JFR, {@code toolledger bench --scenarios replay}).
   */
  private static boolean isHex64(String text) {
    if (text.length() != 64) {
      return false;
    }
    for (int i = 0; i < 64; i++) {
      char c = text.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return hex;
  }
}
