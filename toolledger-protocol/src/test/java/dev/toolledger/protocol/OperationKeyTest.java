package dev.toolledger.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OperationKeyTest {

  @Test
  void quotedAndBareHeaderFormsNameTheSameKey() {
    assertThat(OperationKey.fromHeader("\"op-1\"")).isEqualTo(OperationKey.fromHeader("op-1"));
    assertThat(OperationKey.fromHeader("  op-1 ")).isEqualTo(OperationKey.of("op-1"));
  }

  @Test
  void quotedFormUnescapesQuoteAndBackslash() {
    assertThat(OperationKey.fromHeader("\"a\\\"b\\\\c\"").value()).isEqualTo("a\"b\\c");
  }

  @Test
  void keyOf255VisibleCharactersIsAccepted() {
    String key = "k".repeat(255);
    assertThat(OperationKey.of(key).value()).hasSize(255);
  }

  @Test
  void keyOf256CharactersIsRejected() {
    assertThatThrownBy(() -> OperationKey.of("k".repeat(256)))
        .isInstanceOf(InvalidOperationKeyException.class)
        .hasMessageContaining("at most 255");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "has space",
        "tab\tkey",
        "caf\u00e9",
        "new\nline",
        "\"\"",
        "\"open",
        "\"a\"b\"",
        "\"bad\\escape\""
      })
  void invalidKeysAreRejected(String raw) {
    assertThatThrownBy(() -> OperationKey.fromHeader(raw))
        .isInstanceOf(InvalidOperationKeyException.class);
  }

  @Test
  void toStringShowsNeitherTheKeyNorAHashOfIt() {
    OperationKey key = OperationKey.of("secret-looking-key");
    assertThat(key.toString()).isEqualTo("OperationKey[withheld]");
  }
}
