package dev.toolledger.guard;

import java.util.Locale;

/**
 * What the guard tells the host happened to one call, in {@code _meta} {@value
 * GuardConventions#OUTCOME} and in words.
 */
public enum GuardOutcome {
  /** The action is new with this call and ran once; its outcome is recorded. */
  EXECUTED,
  /**
   * This call was the same action as an earlier, unanswered identical call; that action ran once
   * and this is its recorded result. Nothing ran again.
   */
  REPLAYED,
  /**
   * Definitively not done: the node refused it, or the tool recorded a refusal (a business error).
   * Nothing happened; the arguments may be changed and the tool called again.
   */
  REFUSED,
  /**
   * No definitive answer: it may have happened. Not a failure: do not repeat it with changed
   * arguments; check it with {@code get-operation} or {@code pending-actions}. An identical call
   * within the claim window is the same action and is safe.
   */
  UNKNOWN;

  /** The lower-case name used on the wire. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
