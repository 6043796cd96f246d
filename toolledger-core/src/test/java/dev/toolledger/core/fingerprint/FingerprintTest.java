package dev.toolledger.core.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FingerprintTest {
  @Test
  void sixtyFourLowercaseHexDigitsAreAFingerprint() {
    String hex = "0123456789abcdef".repeat(4);
    assertThat(new Fingerprint(hex).hex()).isEqualTo(hex);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "abc",
        // 63 and 65 digits
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
        // uppercase, a letter past f, a space, a non-ASCII digit
        "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
        "0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef",
        "0123456789abcde 0123456789abcdef0123456789abcdef0123456789abcdef",
        "0123456789abcde\u06610123456789abcdef0123456789abcdef0123456789abcdef"
      })
  void anythingElseIsRefused(String hex) {
    assertThatThrownBy(() -> new Fingerprint(hex))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a fingerprint is 64 lowercase hex digits");
  }
}
