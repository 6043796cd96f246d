package dev.toolledger.core.fingerprint;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * SHA-256 of the canonical form of one intent: tool name, tool version and validated parameters. A
 * fingerprint is not an authorization secret; it only tells whether two requests that share a key
 * asked for the same thing.
 */
public record Fingerprint(String hex) {
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  public Fingerprint {
    Objects.requireNonNull(hex, "hex");
    if (!HEX64.matcher(hex).matches()) {
      throw new IllegalArgumentException("a fingerprint is 64 lowercase hex digits");
    }
  }

  @Override
  public String toString() {
    return hex;
  }
}
