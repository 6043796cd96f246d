package dev.toolledger.core.engine;

import dev.toolledger.core.identity.TenantId;
import java.time.Duration;

/**
 * Observes every invocation's outcome, for logs and metrics. Called on the request thread after the
 * outcome is decided; implementations must be fast and must not throw.
 */
@FunctionalInterface
public interface OutcomeListener {

  /**
   * @param kind {@link ExecutionOutcome#kind()}, or {@code "failed"} when the tool threw
   */
  void onOutcome(TenantId tenant, String tool, String kind, Duration duration);

  OutcomeListener NONE = (tenant, tool, kind, duration) -> {};
}
