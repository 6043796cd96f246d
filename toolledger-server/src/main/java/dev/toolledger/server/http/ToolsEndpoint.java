package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.auth.Principal;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;

/**
 * {@code GET /v1/tools} and the OpenAPI document: what this token may call. Tools outside its
 * scopes are not shown, so that a narrow token cannot learn their names.
 */
final class ToolsEndpoint {
  private final LedgerEngine engine;
  private final List<String> readPaths;

  /**
   * @param readPaths the paths of the read endpoints, listed in the OpenAPI document
   */
  ToolsEndpoint(LedgerEngine engine, List<String> readPaths) {
    this.engine = engine;
    this.readPaths = readPaths.stream().sorted().toList();
  }

  void list(Principal principal, HttpServletResponse response) throws IOException {
    ObjectNode root = Json.object();
    ArrayNode list = root.putArray("tools");
    for (RegisteredTool tool : engine.tools().all()) {
      if (!principal.mayCall(tool.descriptor().name())) {
        continue;
      }
      ObjectNode entry = list.addObject();
      entry.put("name", tool.descriptor().name());
      entry.put("version", tool.descriptor().version());
      entry.put("description", tool.descriptor().description());
      entry.set("inputSchema", tool.descriptor().inputSchema());
      entry.put("retentionSeconds", engine.retention(tool.descriptor()).toSeconds());
    }
    HttpFrame.json(200, root).writeTo(response);
  }

  /** The OpenAPI document with the tools this token may call, like {@link #list}. */
  void openApi(Principal principal, HttpServletResponse response) throws IOException {
    List<ToolDescriptor> tools =
        engine.tools().all().stream()
            .map(RegisteredTool::descriptor)
            .filter(tool -> principal.mayCall(tool.name()))
            .toList();
    List<String> views = principal.mayRead() ? readPaths : List.of();
    HttpFrame.json(200, OpenApiDocument.of(tools, views)).writeTo(response);
  }

  /** The OpenAPI document of no tool and no view, for a caller that sent no token. */
  static void anonymousOpenApi(HttpServletResponse response) throws IOException {
    HttpFrame.json(200, OpenApiDocument.of(List.of(), List.of())).writeTo(response);
  }
}
