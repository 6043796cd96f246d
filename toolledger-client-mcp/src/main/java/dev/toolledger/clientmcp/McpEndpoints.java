package dev.toolledger.clientmcp;

import java.net.URI;

/** What every MCP endpoint this module accepts must be, whichever transport carries it. */
final class McpEndpoints {
  private McpEndpoints() {}

  /**
   * Refuses an endpoint that is not an absolute http or https URI with a host, or that has a query
   * or a fragment.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  static void requireHttpWithoutQuery(URI endpoint) {
    String scheme = endpoint.getScheme();
    if (!endpoint.isAbsolute()
        || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
        || endpoint.getHost() == null) {
      throw new IllegalArgumentException("endpoint must be an absolute http or https URI");
    }
    if (endpoint.getRawQuery() != null || endpoint.getRawFragment() != null) {
      throw new IllegalArgumentException("endpoint must not have a query or a fragment");
    }
  }
}
