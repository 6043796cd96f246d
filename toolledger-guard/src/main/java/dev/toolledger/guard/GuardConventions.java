package dev.toolledger.guard;

/** Names the guard adds to MCP: its own tools and the {@code _meta} fields of its results. */
public final class GuardConventions {
  private GuardConventions() {}

  /**
   * In a result's {@code _meta}: {@code executed}, {@code replayed}, {@code refused}, {@code
   * unknown}.
   */
  public static final String OUTCOME = "dev.toolledger/outcome";

  /**
   * In a result's {@code _meta}: the guard's id of the action (its journal step id, not its key).
   */
  public static final String ACTION = "dev.toolledger/action";

  /** The guard's tool that lists the actions without a definitive answer. */
  public static final String PENDING_ACTIONS = "pending-actions";

  /** The guard's lookup tool; replaces the node's, and takes an action id. */
  public static final String GET_OPERATION = "get-operation";
}
