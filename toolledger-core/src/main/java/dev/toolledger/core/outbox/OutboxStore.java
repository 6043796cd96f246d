package dev.toolledger.core.outbox;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Storage of outbox events for relays. Claims and due times are judged by the database's clock, so
 * relays on nodes with skewed clocks agree. Every mark is conditional on the caller still holding
 * the claim, so a relay that stalled past its claim cannot overwrite another's result.
 */
public interface OutboxStore {

  /**
   * Claims up to {@code limit} due {@link OutboxState#PENDING} events for {@code owner} for {@code
   * lease}. Events claimed by another live relay are skipped, not waited for.
   */
  List<OutboxEvent> claimDue(String owner, Duration lease, int limit);

  /** Marks a claimed event delivered; returns false when the claim was lost to another owner. */
  boolean markDelivered(String id, String owner);

  /** Counts an attempt and makes the event due again after {@code retryIn}. */
  boolean markRetry(String id, String owner, Duration retryIn, String error);

  /** Counts an attempt and stops delivering the event. */
  boolean markDead(String id, String owner, String error);

  /**
   * Gives back a claimed event that was not attempted (a relay stopping in the middle of its
   * batch): no attempt is counted and the event is due as before, for any relay, without waiting
   * for the claim's lease to run out.
   *
   * @return false when the claim was lost (nothing changed)
   */
  boolean release(String id, String owner);

  /** Makes a {@link OutboxState#DEAD} event due now with its attempts reset. */
  boolean rearm(String id);

  Optional<OutboxEvent> findEvent(String id);

  List<OutboxEvent> listEvents(OutboxState state, int limit);

  Map<OutboxState, Long> countEvents();
}
