package dev.toolledger.server;

import dev.toolledger.server.mcp.McpService;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A node's HTTP API and MCP endpoint as plain servlets and filters, for a servlet container the
 * application already runs (Spring Boot's embedded Tomcat, say) instead of ToolLedger's own Jetty.
 * ToolLedger's Jetty server registers exactly these, so both serve the same assembly.
 *
 * <p>Paths are relative to where the ledger is mounted: {@code "/*"} (the API, request ids, the
 * Origin check) and {@code "/mcp"}. A container that mounts the ledger under {@code /toolledger}
 * maps them to {@code /toolledger/*} and {@code /toolledger/mcp}; the exact MCP mapping takes
 * precedence over the API's prefix mapping, and filters must run in the listed order. Every filter
 * and servlet is registered as supporting asynchronous requests (harmless: MCP answers each request
 * with one JSON message on the request's own thread).
 *
 * <p>{@link #close()} closes the MCP sessions and waits for tool calls still running; the
 * container's own shutdown decides how requests in flight end.
 */
public final class HttpMount implements AutoCloseable {
  private final List<FilterEntry> filters;
  private final List<ServletEntry> servlets;
  private final Optional<McpService> mcp;

  HttpMount(List<FilterEntry> filters, List<ServletEntry> servlets, Optional<McpService> mcp) {
    this.filters = List.copyOf(filters);
    this.servlets = List.copyOf(servlets);
    this.mcp = mcp;
  }

  /** The filters, in the order they must run. */
  public List<FilterEntry> filters() {
    return filters;
  }

  /** The servlets. */
  public List<ServletEntry> servlets() {
    return servlets;
  }

  /** Whether the MCP endpoint is among the servlets. */
  public boolean servesMcp() {
    return mcp.isPresent();
  }

  @Override
  public void close() {
    mcp.ifPresent(McpService::close);
  }

  /**
   * A filter for the requests (dispatcher type REQUEST) to {@code path}.
   *
   * @param path relative to the mount point: {@code "/*"} or an exact path such as {@code "/mcp"}
   */
  public record FilterEntry(String name, Filter filter, String path) {
    public FilterEntry {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(filter, "filter");
      Objects.requireNonNull(path, "path");
    }
  }

  /**
   * A servlet for {@code path}.
   *
   * @param path relative to the mount point: {@code "/*"} or an exact path such as {@code "/mcp"}
   */
  public record ServletEntry(String name, Servlet servlet, String path) {
    public ServletEntry {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(servlet, "servlet");
      Objects.requireNonNull(path, "path");
    }
  }
}
