package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;

/**
 * The JSON-RPC errors that ToolLedger's MCP endpoint answers itself, each with a stable code and,
 * in {@code error.data.type}, the problem type URI a client can dispatch on. They never carry a
 * stack trace, a class name or a version.
 */
enum JsonRpcErrors {
  /** The body is not a JSON text in UTF-8, or has duplicate member names. HTTP 400. */
  PARSE_ERROR(-32700, 400, ProblemType.MALFORMED_JSON),
  /**
   * The body is JSON but not one JSON-RPC 2.0 message: a batch (an array), a wrong {@code jsonrpc},
   * an {@code id} that is not a string or an integer, a missing {@code method}. HTTP 400.
   */
  INVALID_REQUEST(-32600, 400, ProblemType.BAD_REQUEST),
  /** {@code params} (or its {@code name}, {@code arguments}, {@code _meta}) has the wrong shape. */
  INVALID_PARAMS(-32602, 400, ProblemType.INVALID_PARAMETERS),
  /** {@code tools/call} of a tool this node does not have, for a token that may call that name. */
  UNKNOWN_TOOL(-32602, 200, ProblemType.UNKNOWN_TOOL),
  /** The request could not be handled for a reason of the server's; nothing to fix in it. */
  INTERNAL_ERROR(-32603, 500, ProblemType.INTERNAL);

  private final int code;
  private final int httpStatus;
  private final ProblemType type;

  JsonRpcErrors(int code, int httpStatus, ProblemType type) {
    this.code = code;
    this.httpStatus = httpStatus;
    this.type = type;
  }

  int code() {
    return code;
  }

  int httpStatus() {
    return httpStatus;
  }

  /** The JSON-RPC response; {@code id} null (unknown) is sent as {@code "id": null}. */
  ObjectNode answer(JsonNode id, String message) {
    ObjectNode root = Json.object();
    root.put("jsonrpc", "2.0");
    root.set("id", id == null ? NullNode.getInstance() : id);
    ObjectNode error = root.putObject("error");
    error.put("code", code);
    error.put("message", message);
    error.putObject("data").put("type", type.uri().toString());
    return root;
  }
}
