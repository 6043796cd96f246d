package com.example.notes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;

/**
 * A test tool that writes through a {@code @Transactional} service. {@code mode} chooses: "ok"
 * (insert and answer 201), "fail-after" (insert, then the tool throws) or "swallow" (the service
 * fails inside its transactional method and the tool catches the exception and answers 201).
 */
final class ServiceTool implements TransactionalTool {
  static final String NAME = "create-note-via-service";
  private final NoteWriter writer;
  private final ToolDescriptor descriptor;

  ServiceTool(NoteWriter writer) throws Exception {
    this.writer = writer;
    this.descriptor =
        ToolDescriptor.builder(NAME, "1")
            .inputSchema(
                new ObjectMapper()
                    .readTree(
                        "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"},"
                            + "\"mode\":{\"enum\":[\"ok\",\"fail-after\",\"swallow\"]}},"
                            + "\"required\":[\"title\",\"mode\"]}"))
            .build();
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) {
    String title = parameters.get("title").textValue();
    String mode = parameters.get("mode").textValue();
    String tenant = context.tenant().value();
    switch (mode) {
      case "ok":
        writer.insert(tenant, title, context.now());
        break;
      case "fail-after":
        writer.insert(tenant, title, context.now());
        throw new IllegalStateException("failing after the service's insert, on purpose");
      default:
        writer.insert(tenant, title, context.now());
        try {
          writer.insertThenFail(tenant, title, context.now());
        } catch (IllegalStateException expected) {
          // Swallowed here, but Spring marked the joined transaction rollback-only.
        }
    }
    return ToolResponse.of(201, new ObjectMapper().createObjectNode().put("title", title));
  }
}
