package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Set;

/**
 * One JSON-RPC message as the MCP endpoint takes it, checked before the SDK sees it: a single
 * JSON-RPC 2.0 object (no batch), an {@code id} that is a string or an integer, {@code params} an
 * object of the shape its method needs. The SDK would answer a message that fails these checks with
 * a serialized exception, or (a {@code tools/call} with the wrong shape) with nothing at all.
 */
sealed interface McpMessage {
  /** A message to hand on; {@code id} is null for a notification or a response. */
  record Accepted(String method, JsonNode id, JsonNode params) implements McpMessage {
    boolean isRequest() {
      return method != null && id != null;
    }
  }

  /** A message to answer with {@code error}. */
  record Refused(JsonRpcErrors error, JsonNode id, String reason) implements McpMessage {}

  /** The SDK types whose shape a method's {@code params} must have. */
  Map<String, Class<?>> PARAMS =
      Map.of(
          McpSchema.METHOD_INITIALIZE, McpSchema.InitializeRequest.class,
          McpSchema.METHOD_TOOLS_CALL, McpSchema.CallToolRequest.class,
          McpSchema.METHOD_TOOLS_LIST, McpSchema.PaginatedRequest.class);

  static McpMessage check(JsonNode message, McpJsonMapper mapper) {
    if (message.isArray()) {
      return new Refused(
          JsonRpcErrors.INVALID_REQUEST,
          null,
          "JSON-RPC batches are not supported (MCP 2025-06-18 and later); send one message per"
              + " POST");
    }
    if (!message.isObject()) {
      return new Refused(
          JsonRpcErrors.INVALID_REQUEST, null, "send one JSON-RPC 2.0 message, a JSON object");
    }
    JsonNode id = message.get("id");
    boolean hasId = id != null;
    if (hasId && !(id.isTextual() || id.isIntegralNumber())) {
      return new Refused(
          JsonRpcErrors.INVALID_REQUEST, null, "the id must be a string or an integer");
    }
    JsonNode answerId = hasId ? id : NullNode.getInstance();
    if (!"2.0".equals(message.path("jsonrpc").textValue())) {
      return new Refused(JsonRpcErrors.INVALID_REQUEST, answerId, "jsonrpc must be \"2.0\"");
    }
    JsonNode method = message.get("method");
    if (method == null) {
      boolean result = message.has("result");
      boolean error = message.has("error");
      if (hasId && result != error) {
        return new Accepted(null, null, null); // a client's response to a server request
      }
      return new Refused(
          JsonRpcErrors.INVALID_REQUEST,
          answerId,
          "a message needs a method (a request or notification), or an id with a result or an"
              + " error (a response)");
    }
    if (!method.isTextual() || method.textValue().isEmpty()) {
      return new Refused(JsonRpcErrors.INVALID_REQUEST, answerId, "method must be a string");
    }
    String name = method.textValue();
    JsonNode params = message.get("params");
    if (params != null && !params.isNull() && !params.isObject()) {
      return new Refused(JsonRpcErrors.INVALID_PARAMS, answerId, "params must be an object");
    }
    if (params == null || params.isNull()) {
      params = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }
    if (name.equals(McpSchema.METHOD_INITIALIZE) && !hasId) {
      return new Refused(
          JsonRpcErrors.INVALID_REQUEST, answerId, "initialize is a request: send it with an id");
    }
    if (name.equals(McpSchema.METHOD_INITIALIZE)) {
      if (!params.path("protocolVersion").isTextual()
          || !params.path("clientInfo").isObject()
          || !params.path("clientInfo").path("name").isTextual()) {
        return new Refused(
            JsonRpcErrors.INVALID_PARAMS,
            answerId,
            "initialize needs params.protocolVersion (a string) and params.clientInfo with a"
                + " name");
      }
    }
    if (name.equals(McpSchema.METHOD_TOOLS_CALL)) {
      if (!params.path("name").isTextual()) {
        return new Refused(
            JsonRpcErrors.INVALID_PARAMS, answerId, "tools/call needs params.name, a string");
      }
      for (String member : new String[] {"arguments", "_meta"}) {
        JsonNode value = params.get(member);
        if (value != null && !value.isNull() && !value.isObject()) {
          return new Refused(
              JsonRpcErrors.INVALID_PARAMS,
              answerId,
              "tools/call params." + member + " must be an object");
        }
      }
    }
    Class<?> shape = PARAMS.get(name);
    if (shape != null
        && !(name.equals(McpSchema.METHOD_TOOLS_CALL) && onlyCheckedMembers(params))) {
      try {
        mapper.convertValue(params, shape);
      } catch (RuntimeException e) {
        // The mapper's reason names Java types; the client gets the method's contract instead.
        return new Refused(
            JsonRpcErrors.INVALID_PARAMS,
            answerId,
            "params do not have the shape " + name + " takes (see the MCP specification)");
      }
    }
    return new Accepted(name, hasId ? id : null, params);
  }

  /** The members of {@code tools/call} params whose shape the checks above establish. */
  Set<String> CHECKED_CALL_MEMBERS = Set.of("name", "arguments", "_meta");

  /**
   * Whether {@code params} of a {@code tools/call} has no member but those checked above: a string
   * name and object arguments and _meta always bind to the SDK's request, so binding them here too
   * (10 of 228 samples on the node's threads in a JFR profile of the benchmark's raw MCP create at
   * 16 clients) proves nothing more. Any other member (say a task or a future field of the wrong
   * type) is still bound, so that the SDK never sees a call it cannot take.
   */
  private static boolean onlyCheckedMembers(JsonNode params) {
    for (java.util.Iterator<String> names = params.fieldNames(); names.hasNext(); ) {
      if (!CHECKED_CALL_MEMBERS.contains(names.next())) {
        return false;
      }
    }
    return true;
  }
}
