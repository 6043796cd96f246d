package dev.toolledger.guard;

import dev.toolledger.clientmcp.LeanStreamableHttpTransport;
import dev.toolledger.clientmcp.McpActionTransport;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.Implementation;
import io.modelcontextprotocol.spec.McpSchema.ListToolsResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The guard's side of the link to the node: the official SDK client over toolledger-client-mcp's
 * lean Streamable HTTP transport, shared by {@code tools/list} and by the {@link
 * McpActionTransport} that sends each attempt. Nothing is sent until it is used.
 */
final class NodeLink implements AutoCloseable {
  private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final int MAX_TOOL_PAGES = 20;

  private final McpSyncClient client;
  private final McpActionTransport transport;

  private NodeLink(McpSyncClient client) {
    this.client = client;
    this.transport = McpActionTransport.over(client);
  }

  static NodeLink open(GuardConfig config) {
    Duration timeout = config.attemptTimeout();
    LeanStreamableHttpTransport http =
        LeanStreamableHttpTransport.builder(config.endpoint())
            .header("Authorization", "Bearer " + config.token())
            .connectTimeout(
                timeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? timeout : MAX_CONNECT_TIMEOUT)
            .readTimeout(timeout)
            .build();
    McpSyncClient client =
        McpClient.sync(http)
            .clientInfo(Implementation.builder("toolledger-guard", Guard.version()).build())
            .requestTimeout(timeout)
            .initializationTimeout(timeout)
            .build();
    return new NodeLink(client);
  }

  McpActionTransport transport() {
    return transport;
  }

  /** Every tool the node shows this token, all pages. */
  List<Tool> tools() {
    List<Tool> tools = new ArrayList<>();
    ListToolsResult page = client.listTools();
    tools.addAll(page.tools());
    for (int pages = 1; page.nextCursor() != null && pages < MAX_TOOL_PAGES; pages++) {
      page = client.listTools(page.nextCursor());
      tools.addAll(page.tools());
    }
    return tools;
  }

  @Override
  public void close() {
    transport.close();
    try {
      if (!client.closeGracefully()) {
        client.close();
      }
    } catch (RuntimeException e) {
      client.close();
    }
  }
}
