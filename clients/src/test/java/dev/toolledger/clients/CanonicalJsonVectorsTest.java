package dev.toolledger.clients;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.CanonicalJson;
import dev.toolledger.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The RFC 8785 vectors in {@code clients/testdata/canonical-json.json}, which the TypeScript and
 * Python clients' suites also check, hold for core's {@link CanonicalJson}: the three sides compare
 * parameters alike (same intent or conflict).
 */
class CanonicalJsonVectorsTest {
  @Test
  void sharedVectorsCanonicalizeAsTheClientsExpect() throws Exception {
    JsonNode vectors =
        Json.parse(
            Files.readString(Path.of("testdata", "canonical-json.json"), StandardCharsets.UTF_8));
    assertThat(vectors.size()).isGreaterThanOrEqualTo(10);
    for (JsonNode vector : vectors) {
      assertThat(CanonicalJson.canonicalize(Json.parse(vector.get("input").textValue())))
          .as(vector.get("name").textValue())
          .isEqualTo(vector.get("canonical").textValue());
    }
  }
}
