package dev.toolledger.core.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.protocol.Json;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {
  record Named(String name, String schema) implements TransactionalTool {
    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder(name, "1").inputSchema(Json.parse(schema)).build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) {
      return ToolResponse.of(200, Json.object());
    }
  }

  @Test
  void twoToolsWithOneNameAreRefusedWithWhatToDo() {
    assertThatThrownBy(
            () ->
                ToolRegistry.of(
                    new Named("create-note", "{\"type\":\"object\"}"),
                    new Named("create-note", "{\"type\":\"object\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two tools are named create-note")
        .hasMessageContaining("--without-plugin");
  }

  @Test
  void aSchemaThatDoesNotCompileIsRefused() {
    assertThatThrownBy(() -> ToolRegistry.of(new Named("bad", "{\"type\":\"no-such-type\"}")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void toolsAreListedByName() {
    ToolRegistry registry =
        ToolRegistry.of(
            new Named("b-tool", "{\"type\":\"object\"}"),
            new Named("a-tool", "{\"type\":\"object\"}"));
    assertThat(registry.all())
        .extracting(t -> t.descriptor().name())
        .containsExactly("a-tool", "b-tool");
  }
}
