package dev.toolledger.protocol;

/**
 * Where an operation stands. Only {@link #COMPLETED} carries an outcome that may be replayed;
 * {@link #IN_PROGRESS} never masquerades as success and {@link #UNKNOWN} is never guessed into
 * either success or failure.
 */
public enum OperationState {
  /** Claimed; the effect may be under way. Retries wait, then hear "in progress". */
  IN_PROGRESS,
  /** The outcome (a success or a definitive business error) is recorded and is replayed. */
  COMPLETED,
  /** Confirmed that no effect happened; the key is fenced and will not execute. */
  NOT_EXECUTED,
  /** The effect may or may not have happened; it stays visible until looked up or resolved. */
  UNKNOWN;

  public boolean isFinal() {
    return this == COMPLETED || this == NOT_EXECUTED;
  }
}
