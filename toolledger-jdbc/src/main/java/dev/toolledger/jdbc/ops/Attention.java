package dev.toolledger.jdbc.ops;

/**
 * The counts an operator watches: each should stay at or near zero.
 *
 * @param unknown operations in {@code UNKNOWN}: their effect may or may not have happened, and a
 *     person or a business process must resolve them
 * @param staleInProgress operations {@code IN_PROGRESS} for longer than the threshold asked for
 * @param outboxPending outbox events waiting for (another) delivery attempt: the outbox's depth
 * @param outboxDead outbox events whose attempts ran out or whose recipient refused them
 */
public record Attention(long unknown, long staleInProgress, long outboxPending, long outboxDead) {}
