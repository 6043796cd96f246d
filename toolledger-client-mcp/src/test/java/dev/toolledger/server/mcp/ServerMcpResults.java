package dev.toolledger.server.mcp;

import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;

/**
 * Test access to the server's own mapping of engine outcomes to MCP tool results ({@code
 * McpResults}, package-private), so that the client's classification is checked against what the
 * server really sends. Lives in the server's package in this module's test tree only.
 */
public final class ServerMcpResults {
  private ServerMcpResults() {}

  public static CallToolResult of(ExecutionOutcome outcome, OperationKey key) {
    return McpResults.of(outcome, key);
  }

  public static CallToolResult problem(
      Problem problem, OperationKey key, OperationState state, Duration retryAfter) {
    return McpResults.problem(problem, key, state, retryAfter);
  }

  public static CallToolResult operation(OperationRecord record) {
    return McpResults.operation(record, List.of());
  }
}
