package dev.toolledger.testkit.history;

/** The promises a run's history is checked against. */
public enum Rule {
  /** No key has more than one effect, and no effect exists that no key asked for. */
  ONE_EFFECT_PER_KEY,
  /**
   * Every acknowledged outcome (a recorded 2xx) is in the ledger with its one effect, every
   * acknowledgement of a key said the same, and a call of the key after the run replays it
   * byte-identically.
   */
  ACKNOWLEDGED_DURABLE,
  /**
   * Every key whose caller was left not knowing (no answer, 409 in progress, a retryable 5xx) is,
   * after the run, settled by a lookup (completed, not executed, never recorded) or still reported
   * as unknown, and the lookup agrees with the database.
   */
  UNKNOWN_SETTLED,
  /** No request waited longer than the bound for its answer. */
  WAIT_BOUNDED
}
