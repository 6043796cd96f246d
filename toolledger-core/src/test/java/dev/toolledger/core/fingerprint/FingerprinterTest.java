package dev.toolledger.core.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.protocol.CanonicalJson;
import dev.toolledger.protocol.Json;
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

  @Test
  void theIntentIsWrittenExactlyAsTheCanonicalFormOfTheIntentObject() {
    // Fingerprinter writes {"parameters","tool","version"} itself; a stored key's fingerprint
    // must not change with that, so it must equal canonicalizing the intent as an object.
    String[][] cases = {
      {"create-note", "1", "{\"title\":\"a\"}"},
      {
        "t\"quoted\\slash",
        "v\u0001\n",
        "{\"z\":[1,2.50,{\"b\":null,\"a\":true}],\"é\":\"\u00e9\u20ac\ud83d\ude00\"}"
      },
      {"ünïcødé-tool", "2026-12", "{}"},
      {"x", "1", "[\"not an object\",1e3]"},
    };
    for (String[] c : cases) {
      com.fasterxml.jackson.databind.node.ObjectNode intent = Json.object();
      intent.set("parameters", Json.parse(c[2]));
      intent.put("tool", c[0]);
      intent.put("version", c[1]);
      assertThat(of(c[0], c[1], c[2]).hex())
          .as("intent %s %s %s", c[0], c[1], c[2])
          .isEqualTo(Fingerprinter.sha256Hex(CanonicalJson.canonicalUtf8(intent)));
    }
  }
}
