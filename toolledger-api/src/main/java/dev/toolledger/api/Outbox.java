package dev.toolledger.api;

/**
 * Enqueues events inside the ledger's transaction: an event is stored if and only if the effect and
 * the operation record commit.
 */
@FunctionalInterface
public interface Outbox {

  /** Returns the event's id, stable for every delivery attempt; recipients deduplicate by it. */
  String enqueue(OutboxMessage message);
}
