package dev.toolledger.core.outbox;

/** Where an outbox event stands. */
public enum OutboxState {
  /** Waiting for (another) delivery attempt. */
  PENDING,
  /** The recipient acknowledged it with a 2xx. */
  DELIVERED,
  /** Attempts ran out or the recipient refused it for good; visible, and can be re-armed. */
  DEAD
}
