package dev.toolledger.declarative.mcp;

/**
 * The call reached the upstream MCP server (or may have) and no answer came back: it timed out, the
 * program died, the connection dropped, or the server answered a JSON-RPC error that does not say
 * the tool was not run. The effect may or may not have happened. The message names exception
 * classes and JSON-RPC codes only.
 */
public final class UncertainUpstreamCallException extends Exception {
  private static final long serialVersionUID = 1L;

  UncertainUpstreamCallException(String message) {
    super(message);
  }
}
