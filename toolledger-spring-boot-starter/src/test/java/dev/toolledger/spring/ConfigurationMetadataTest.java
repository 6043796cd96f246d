package dev.toolledger.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The metadata IDEs complete {@code toolledger.*} from, generated at build time by Spring Boot's
 * configuration processor from {@link ToolLedgerProperties}: every property, with its type, its
 * description and its default.
 */
class ConfigurationMetadataTest {

  static Map<String, JsonNode> properties() throws Exception {
    try (InputStream in =
        ConfigurationMetadataTest.class
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("META-INF/spring-configuration-metadata.json in the jar").isNotNull();
      Map<String, JsonNode> byName = new HashMap<>();
      for (JsonNode property : new ObjectMapper().readTree(in).path("properties")) {
        byName.put(property.path("name").asText(), property);
      }
      return byName;
    }
  }

  @Test
  void everyPropertyIsListedWithADescription() throws Exception {
    Map<String, JsonNode> properties = properties();

    assertThat(properties)
        .containsOnlyKeys(
            "toolledger.enabled",
            "toolledger.path",
            "toolledger.http-enabled",
            "toolledger.mcp-enabled",
            "toolledger.max-request-bytes",
            "toolledger.allowed-origins",
            "toolledger.allowed-hosts",
            "toolledger.node-id",
            "toolledger.busy-timeout",
            "toolledger.claim-wait",
            "toolledger.token-cache-ttl",
            "toolledger.recovery-interval",
            "toolledger.sweep-interval",
            "toolledger.relay-enabled",
            "toolledger.adopt-ledger-settings",
            "toolledger.stale-after");
    properties.forEach(
        (name, property) ->
            assertThat(property.path("description").asText()).as(name).isNotBlank());
  }

  @Test
  void theDefaultsAreThoseTheDocumentationStates() throws Exception {
    Map<String, JsonNode> properties = properties();

    assertThat(properties.get("toolledger.path").path("defaultValue").asText())
        .isEqualTo("/toolledger");
    assertThat(properties.get("toolledger.enabled").path("defaultValue").asBoolean()).isTrue();
    assertThat(properties.get("toolledger.max-request-bytes").path("defaultValue").asInt())
        .isEqualTo(65536);
    assertThat(properties.get("toolledger.busy-timeout").path("type").asText())
        .isEqualTo("java.time.Duration");
    assertThat(properties.get("toolledger.busy-timeout").path("defaultValue").asText())
        .isEqualTo("5s");
    assertThat(properties.get("toolledger.sweep-interval").path("defaultValue").asText())
        .isEqualTo("1m");
  }
}
