package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import java.time.Duration;

/**
 * Observes every invocation's outcome, for logs and metrics. Called on the request thread after the
 * outcome is decided; implementations must be fast and must not throw.
 *
 * <p>Requests, effects and replays are told apart: {@link #onOutcome} hears every invocation (a
 * retry that replays is one more request, with kind {@code replayed}), {@link #onEffect} only the
 * fresh executions that committed a business effect. More calls caused by retries therefore never
 * look like more effects.
 */
@FunctionalInterface
public interface OutcomeListener {

  /**
   * Called once per execution with how it ended and how long it took.
   *
   * @param kind {@link ExecutionOutcome#kind()}, or {@code "failed"} when the tool threw
   */
  void onOutcome(TenantId tenant, String tool, String kind, Duration duration);

  /**
   * A fresh execution of {@code tool} committed its effect: its outcome is {@code executed} and the
   * recorded status is below 400. Never called for a replay, a recorded business error (the tool
   * refused and changed nothing), or an operation settled later by recovery or by an operator.
   * Called after {@link #onOutcome}. Default: nothing.
   */
  default void onEffect(TenantId tenant, String tool) {}

  /**
   * An invocation failed because the ledger's storage did (the caller was answered {@code
   * ledger-unavailable}; nothing was recorded). Called after {@link #onOutcome}. Default: nothing.
   */
  default void onStorageFault() {}

  OutcomeListener NONE = (tenant, tool, kind, duration) -> {};
}
