package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.protocol.Json;

/** A test-only external tool whose downstream is never reachable: nothing ever happens. */
final class UnreachableServiceTool implements ExternalTool {
  static final String NAME = "send-to-nowhere";

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder(NAME, "1")
        .description("Sends a message to a service that cannot be reached.")
        .inputSchema(Json.parse("{\"type\":\"object\"}"))
        .build();
  }

  @Override
  public EffectResult perform(EffectContext context, JsonNode parameters) {
    return EffectResult.notDone("connection refused before sending");
  }
}
