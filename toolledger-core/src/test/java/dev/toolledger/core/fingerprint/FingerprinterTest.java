package dev.toolledger.core.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.json.Json;
import org.junit.jupiter.api.Test;

class FingerprinterTest {

  private static Fingerprint of(String tool, String version, String params) {
    return Fingerprinter.fingerprint(tool, version, Json.parse(params));
  }

  @Test
  void keyOrderAndWhitespaceDoNotChangeTheFingerprint() {
    assertThat(of("create-note", "1", "{\"title\":\"a\",\"body\":\"b\"}"))
        .isEqualTo(of("create-note", "1", "{ \"body\" : \"b\" ,\n \"title\" : \"a\" }"));
  }

  @Test
  void numberSpellingDoesNotChangeTheFingerprint() {
    assertThat(of("t", "1", "{\"n\":1}"))
        .isEqualTo(of("t", "1", "{\"n\":1.0}"))
        .isEqualTo(of("t", "1", "{\"n\":1e0}"));
  }

  @Test
  void toolNameToolVersionAndParametersEachChangeTheFingerprint() {
    Fingerprint base = of("create-note", "1", "{\"title\":\"a\"}");
    assertThat(of("create-task", "1", "{\"title\":\"a\"}")).isNotEqualTo(base);
    assertThat(of("create-note", "2", "{\"title\":\"a\"}")).isNotEqualTo(base);
    assertThat(of("create-note", "1", "{\"title\":\"b\"}")).isNotEqualTo(base);
    assertThat(of("create-note", "1", "{\"title\":\"a \"}")).isNotEqualTo(base);
  }

  @Test
  void fingerprintIsSha256OfTheCanonicalIntent() {
    String canonical =
        "{\"parameters\":{\"title\":\"a\"},\"tool\":\"create-note\",\"version\":\"1\"}";
    assertThat(of("create-note", "1", "{\"title\":\"a\"}").hex())
        .isEqualTo(
            Fingerprinter.sha256Hex(canonical.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }
}
