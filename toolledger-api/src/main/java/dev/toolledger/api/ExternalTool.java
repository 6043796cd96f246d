package dev.toolledger.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;

/**
 * A tool whose effect happens outside the ledger's database: another service processes an
 * attachment, sends a mail, charges a card. Rolling back cannot undo such an effect, so the engine
 * works in three steps:
 *
 * <ol>
 *   <li>it commits a claim: state {@code IN_PROGRESS}, this node as owner, a lease judged by the
 *       database's clock, and a fencing token;
 *   <li>it calls {@link #perform} outside any transaction, passing a downstream key derived from
 *       the operation (the same on every retry and every takeover);
 *   <li>it records the outcome, on condition that its fencing token is still current: an executor
 *       whose lease was taken over cannot overwrite what the recovery decided.
 * </ol>
 *
 * <p>When {@link #perform} throws, the effect may or may not have happened. The engine never
 * guesses and never silently runs the effect again: it asks the downstream ({@link #lookup}) when
 * the tool can, performs again with the same downstream key when the downstream is idempotent by it
 * ({@link #idempotentDownstream}), and otherwise records {@code UNKNOWN} for a human or a business
 * process to settle.
 */
public non-sealed interface ExternalTool extends Tool {
  /** Default lease: 30 seconds. */
  Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  /**
   * How long a claim holds before a recovery worker may take it over. It must be longer than {@link
   * #perform} can take (give the downstream call its own shorter timeout). Default 30 seconds.
   */
  default Duration lease() {
    return DEFAULT_LEASE;
  }

  /**
   * Performs the effect, outside any database transaction.
   *
   * @return {@link EffectResult.Done} with the outcome to record (a success or a definitive
   *     business error), or {@link EffectResult.NotDone} when it is certain that nothing happened
   *     (the claim is then released and the caller may retry with the same key)
   * @throws Exception when the effect may or may not have happened (a timeout, a dropped connection
   *     after sending)
   */
  EffectResult perform(EffectContext context, JsonNode parameters) throws Exception;

  /** Whether {@link #lookup} can tell what happened to a downstream key. Default false. */
  default boolean supportsLookup() {
    return false;
  }

  /**
   * Asks the downstream what became of the effect with {@code context.downstreamKey()}. Only called
   * when {@link #supportsLookup()}. Answering {@link DownstreamStatus.Absent} is a promise that the
   * downstream will not perform that key later (for example because it fences unknown keys or
   * refuses requests older than a deadline); otherwise answer {@link DownstreamStatus.Pending}.
   */
  default DownstreamStatus lookup(EffectContext context, JsonNode parameters) throws Exception {
    throw new UnsupportedOperationException(name() + " offers no outcome lookup");
  }

  /**
   * Whether the downstream performs one effect per downstream key however often it is called with
   * it, so that calling {@link #perform} again with the same key is safe. Default false.
   */
  default boolean idempotentDownstream() {
    return false;
  }
}
