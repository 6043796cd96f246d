package dev.toolledger.client.journal;

/**
 * An action's last known status in the journal. {@link #PENDING} and {@link #UNKNOWN} are
 * unfinished: resume drives them to an answer with their original key.
 */
public enum ActionStatus {
  /** Recorded; not yet answered. It may never have been sent, or be in flight right now. */
  PENDING,
  /** The server recorded an outcome (a success or a recorded business error), kept here. */
  COMPLETED,
  /** Definitively refused with no effect (for example invalid parameters); the problem is kept. */
  REJECTED,
  /**
   * Sent, but no definitive answer arrived: the effect may or may not have happened. Never treat it
   * as failure and never send the action again under a new key; look it up or resume it.
   */
  UNKNOWN;

  public boolean isFinal() {
    return this == COMPLETED || this == REJECTED;
  }
}
