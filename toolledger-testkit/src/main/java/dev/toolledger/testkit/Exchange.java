package dev.toolledger.testkit;

import java.util.Objects;

/**
 * A request and the response the server gave to it, as the proxy saw them.
 *
 * @param sequence 1 for the first exchange through the proxy, 2 for the second, ...
 * @param method the request's method
 * @param target the request target (path and query)
 * @param status the response's status code
 * @param requestBody the request's body as received, decoded as UTF-8 (empty when there is none; a
 *     chunked body keeps its chunk framing). Lets a policy tell apart requests that share a path,
 *     such as the JSON-RPC messages an MCP client POSTs to one endpoint.
 */
public record Exchange(
    long sequence, String method, String target, int status, String requestBody) {
  public Exchange {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(requestBody, "requestBody");
  }

  /** An exchange whose request had no body. */
  public Exchange(long sequence, String method, String target, int status) {
    this(sequence, method, target, status, "");
  }
}
