package dev.toolledger.server.mcp;

import dev.toolledger.server.auth.Principal;
import java.util.List;
import java.util.Objects;

/**
 * Who sent an MCP request, the {@code Idempotency-Key} header values of its HTTP POST (none on
 * stdio) and the POST's correlation id (null on stdio). Travels from the transport to the tool
 * handlers in the MCP transport context.
 */
record McpCaller(Principal principal, List<String> idempotencyKeyHeaders, String requestId) {
  /** The transport-context entry that carries the caller. */
  static final String CONTEXT_KEY = "dev.toolledger/caller";

  McpCaller {
    Objects.requireNonNull(principal, "principal");
    idempotencyKeyHeaders = List.copyOf(idempotencyKeyHeaders);
  }

  McpCaller(Principal principal, List<String> idempotencyKeyHeaders) {
    this(principal, idempotencyKeyHeaders, null);
  }

  static McpCaller withoutHeaders(Principal principal) {
    return new McpCaller(principal, List.of());
  }
}
