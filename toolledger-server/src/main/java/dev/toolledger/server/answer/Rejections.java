package dev.toolledger.server.answer;

import dev.toolledger.core.engine.OutcomeListener;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Logs and counts a call that a transport refused before it reached the engine, like the engine's
 * own refusals: outcome {@code rejected}, with the problem type as the error category. Without
 * this, a flood of calls with a missing key or a forbidden tool would not show in the metrics.
 */
public final class Rejections {
  private final Logger log;
  private final OutcomeListener listener;
  private final String transport;

  /**
   * @param log the transport's logger
   * @param transport the transport named in the log line, or null to name none
   */
  public Rejections(Logger log, OutcomeListener listener, String transport) {
    this.log = log;
    this.listener = listener;
    this.transport = transport;
  }

  /**
   * Logs and counts one refused call.
   *
   * @param tool the tool's name as the caller sent it (echoed in the log only as printable)
   * @param startedNanos {@link System#nanoTime()} when the call arrived
   */
  public void count(Principal principal, String tool, ProblemType reason, long startedNanos) {
    Duration duration = Duration.ofNanos(System.nanoTime() - startedNanos);
    LoggingEventBuilder event =
        log.atInfo()
            .addKeyValue("outcome", "rejected")
            .addKeyValue("error", reason.slug())
            .addKeyValue("tenant", principal.tenant().value())
            .addKeyValue("tool", Printable.name(tool));
    if (transport != null) {
      event = event.addKeyValue("transport", transport);
    }
    event.addKeyValue("ms", duration.toMillis()).log("operation");
    try {
      listener.onOutcome(principal.tenant(), tool, "rejected", duration);
    } catch (RuntimeException e) {
      log.warn("an outcome listener threw; ignoring it", e);
    }
  }
}
