package dev.toolledger.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.protocol.Json;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tool list read from a real node over HTTP, and declared schemas checked up front. */
class ToolLedgerCatalogTest {
  @TempDir Path dir;

  @Test
  void serverToolsBecomeSpecificationsWithTheirDescriptionAndParameterSchema() {
    try (NotesNode node = NotesNode.start(dir)) {
      List<ToolSpecification> tools = ToolLedgerCatalog.fetch(node.uri(), node.token("acme"));

      assertThat(tools).extracting(ToolSpecification::name).containsExactly("create-note");
      ToolSpecification note = tools.get(0);
      assertThat(note.description()).startsWith("Creates a note with a title");
      JsonObjectSchema parameters = note.parameters();
      assertThat(parameters.required()).containsExactly("title");
      assertThat(parameters.properties()).containsOnlyKeys("title", "body");
      assertThat(parameters.additionalProperties()).isFalse();
      assertThat(note.toJson()).contains("\"maxLength\":200");
    }
  }

  @Test
  void badTokenIsRefusedWithoutQuotingTheToken() {
    try (NotesNode node = NotesNode.start(dir)) {
      assertThatThrownBy(() -> ToolLedgerCatalog.fetch(node.uri(), "tl_not-a-token"))
          .isInstanceOf(ToolCatalogException.class)
          .hasMessageContaining("HTTP 401")
          .hasMessageContaining("check the token")
          .hasMessageNotContaining("tl_not-a-token");
    }
  }

  @Test
  void unreachableServerIsAClearError() {
    assertThatThrownBy(() -> ToolLedgerCatalog.fetch(URI.create("http://127.0.0.1:1"), "t"))
        .isInstanceOf(ToolCatalogException.class)
        .hasMessageContaining("could not read the tool list from http://127.0.0.1:1/v1/tools");
  }

  @Test
  void declaredSchemaMustDescribeAnObject() {
    assertThatThrownBy(
            () ->
                ToolLedgerCatalog.specification(
                    "send-email", "", Json.parse("{\"type\":\"string\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool send-email must be of type object");
    ToolSpecification declared =
        ToolLedgerCatalog.specification(
            "send-email",
            "Sends one email.",
            Json.parse(
                "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
                    + "\"required\":[\"to\"],\"properties\":{\"to\":{\"type\":\"string\"}}}"));
    assertThat(declared.parameters().required()).containsExactly("to");
  }

  @Test
  void providerNeedsAClientAndDistinctTools() {
    assertThatThrownBy(() -> ToolLedgerToolProvider.builder().build())
        .hasMessageContaining("client is required");
    ToolSpecification tool =
        ToolLedgerCatalog.specification("t", "", Json.parse("{\"type\":\"object\"}"));
    try (ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"))) {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(URI.create("http://127.0.0.1:1"))
              .token("t")
              .journal(journal)
              .build();
      assertThatThrownBy(
              () -> ToolLedgerToolProvider.builder().client(client).tool(tool).tool(tool).build())
          .hasMessageContaining("tool t is given twice");
      assertThatThrownBy(() -> ToolLedgerToolProvider.builder().client(client).build())
          .hasMessageContaining("at least one tool is required");
    }
  }
}
