package dev.toolledger.protocol;

import java.net.URI;
import java.util.Arrays;
import java.util.Optional;

/**
 * Every kind of error ToolLedger reports, each with a stable RFC 9457 {@code type} URI. The same
 * URIs are used over HTTP and MCP, so a client can dispatch on the type alone. The URIs identify;
 * they are not promised to resolve.
 */
public enum ProblemType {
  MISSING_KEY("missing-idempotency-key", 400, "Idempotency-Key required"),
  INVALID_KEY("invalid-idempotency-key", 400, "Invalid Idempotency-Key"),
  MALFORMED_JSON("malformed-json", 400, "Malformed JSON"),
  INVALID_PARAMETERS("invalid-parameters", 400, "Invalid parameters"),
  BAD_REQUEST("bad-request", 400, "Bad request"),
  INVALID_AUTHORIZATION("invalid-authorization", 400, "Invalid Authorization header"),
  UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
  FORBIDDEN("forbidden", 403, "Forbidden"),
  FORBIDDEN_ORIGIN("forbidden-origin", 403, "Origin not allowed"),
  /** The request's {@code Host} is not a name this node answers to (DNS rebinding). */
  MISDIRECTED_HOST("misdirected-host", 421, "Host not served here"),
  UNKNOWN_TOOL("unknown-tool", 404, "Unknown tool"),
  NOT_FOUND("not-found", 404, "Not found"),
  MCP_SESSION_NOT_FOUND("mcp-session-not-found", 404, "MCP session not found"),
  METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed"),
  IN_PROGRESS("operation-in-progress", 409, "Operation in progress"),
  OUTCOME_UNKNOWN("outcome-unknown", 409, "Outcome unknown"),
  NOT_EXECUTED("operation-not-executed", 409, "Operation not executed"),
  NOT_RESOLVABLE("operation-not-resolvable", 409, "Operation not resolvable"),
  EXPIRED("operation-expired", 410, "Operation record expired"),
  /** The request's body did not arrive within the server's body timeout. */
  REQUEST_TIMEOUT("request-timeout", 408, "Request body timeout"),
  PAYLOAD_TOO_LARGE("payload-too-large", 413, "Payload too large"),
  UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported media type"),
  KEY_REUSED("idempotency-key-reused", 422, "Idempotency-Key reused with other parameters"),
  RATE_LIMITED("rate-limited", 429, "Too many new operations"),
  MCP_SESSION_LIMIT("mcp-session-limit", 429, "Too many MCP sessions"),
  TOOL_FAILED("tool-failed", 500, "Tool failed"),
  RESPONSE_TOO_LARGE("response-too-large", 500, "Tool response too large to record"),
  TOOL_UNAVAILABLE("tool-unavailable", 503, "Tool unavailable"),
  /** A read view's answer is over the server's bound on answers of read views. */
  READ_VIEW_TOO_LARGE("read-view-too-large", 500, "Read view answer too large"),
  /** A read view's statement ran past the statement timeout of read views and was cancelled. */
  READ_VIEW_TIMEOUT("read-view-timeout", 503, "Read view timed out"),
  INTERNAL("internal-error", 500, "Internal error"),
  STORE_BUSY("ledger-busy", 503, "Ledger busy"),
  /**
   * The ledger's storage failed (disk I/O error, read-only, full, missing or replaced database
   * file, a database server refusing writes): nothing was recorded; retry with the same key once
   * {@code /health} answers ok again.
   */
  STORE_UNAVAILABLE("ledger-unavailable", 503, "Ledger unavailable"),
  /**
   * The node is stopping (SIGTERM): it finishes the requests it admitted and turns new ones away
   * before reading them; nothing was recorded. Retry with the same key after {@code Retry-After}.
   */
  NODE_STOPPING("node-stopping", 503, "Node stopping");

  /** The base of every type URI. */
  public static final String BASE = "https://toolledger.dev/problems/";

  private final String slug;
  private final int status;
  private final String title;
  private final URI uri;

  ProblemType(String slug, int status, String title) {
    this.slug = slug;
    this.status = status;
    this.title = title;
    this.uri = URI.create(BASE + slug);
  }

  public URI uri() {
    return uri;
  }

  public String slug() {
    return slug;
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  /** The problem type named by a {@code type} URI, if it is one of ToolLedger's. */
  public static Optional<ProblemType> fromUri(String uri) {
    if (uri == null || !uri.startsWith(BASE)) {
      return Optional.empty();
    }
    String slug = uri.substring(BASE.length());
    return Arrays.stream(values()).filter(t -> t.slug.equals(slug)).findFirst();
  }
}
