package dev.toolledger.server.mcp;

/**
 * The names ToolLedger uses on MCP: where a client sends the operation key, and what a result's
 * {@code _meta} says. They are part of the protocol contract and do not change.
 */
public final class McpConventions {
  private McpConventions() {}

  /** The path of the Streamable HTTP endpoint, beside the HTTP API on the same port. */
  public static final String PATH = "/mcp";

  /**
   * In a {@code tools/call} request's {@code _meta}: the operation key of the action (a string). In
   * a result's {@code _meta}: the key the outcome is recorded under. In a tool's {@code _meta}:
   * {@code "required"} or {@code "optional"} (optional: the server mints a key when none is sent).
   */
  public static final String OPERATION_KEY = "dev.toolledger/operation-key";

  /**
   * HTTP header accepted on the Streamable HTTP POST as an alternative to the {@code _meta} key.
   */
  public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

  /** In a result's {@code _meta}: true when the outcome was recorded earlier and is replayed. */
  public static final String REPLAYED = "dev.toolledger/replayed";

  /** In a result's {@code _meta}: the operation's state, for example {@code COMPLETED}. */
  public static final String STATE = "dev.toolledger/state";

  /** In a result's {@code _meta}: the HTTP-style status the tool recorded (201, 409, ...). */
  public static final String STATUS = "dev.toolledger/status";

  /** In an error result's {@code _meta}: the RFC 9457 problem type URI. */
  public static final String PROBLEM_TYPE = "dev.toolledger/problem-type";

  /** In an error result's {@code _meta}: seconds to wait before calling again with the same key. */
  public static final String RETRY_AFTER_SECONDS = "dev.toolledger/retry-after-seconds";

  /** In a tool's {@code _meta}: the tool's contract version, part of every fingerprint. */
  public static final String TOOL_VERSION = "dev.toolledger/tool-version";

  /** The read tool that looks an operation up by its key. */
  public static final String GET_OPERATION = "get-operation";
}
