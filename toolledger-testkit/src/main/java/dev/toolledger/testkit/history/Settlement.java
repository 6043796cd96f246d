package dev.toolledger.testkit.history;

/**
 * What a lookup of a key said after the run: {@code GET /v1/operations/{key}}'s state, or that the
 * ledger has no record of it, or that the lookup itself got no answer.
 */
public enum Settlement {
  COMPLETED,
  NOT_EXECUTED,
  UNKNOWN,
  IN_PROGRESS,
  NOT_FOUND,
  UNAVAILABLE;

  /** The state a lookup answer names ({@code COMPLETED}, ...). */
  public static Settlement ofState(String state) {
    return valueOf(state);
  }
}
