package dev.toolledger.testkit;

/**
 * A request and the response the server gave to it, as the proxy saw them.
 *
 * @param sequence 1 for the first exchange through the proxy, 2 for the second, ...
 * @param method the request's method
 * @param target the request target (path and query)
 * @param status the response's status code
 */
public record Exchange(long sequence, String method, String target, int status) {}
