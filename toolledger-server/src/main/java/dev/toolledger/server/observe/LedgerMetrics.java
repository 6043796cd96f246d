package dev.toolledger.server.observe;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.OutcomeListener;
import dev.toolledger.core.engine.RecoveryReport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Counts requests, business effects and latencies per tool and outcome.
 *
 * <ul>
 *   <li>{@code toolledger_requests_total{tool,outcome}}: every invocation, whatever its outcome; a
 *       retry that replays is one more request with {@code outcome="replayed"}.
 *   <li>{@code toolledger_effects_total{tool}}: fresh executions that committed a business effect
 *       (outcome {@code executed} with a recorded status below 400). Never a replay, so more calls
 *       caused by retries never look like more user-created content.
 *   <li>{@code toolledger_request_duration_seconds{tool,outcome}}: a latency histogram.
 *   <li>{@code toolledger_recovery_settlements_total{outcome}}: expired claims the recovery worker
 *       settled later ({@code completed}, {@code not_executed}, {@code unknown}, {@code released},
 *       {@code still_in_progress}, {@code lost}); no tool label, as a recovery pass reports none.
 * </ul>
 *
 * <p>Outcome values are an open set (the engine's {@link
 * dev.toolledger.core.engine.ExecutionOutcome#kind()} plus {@code failed}); tool values are the
 * registered tools' names, and a name no tool has (it comes from the request) is counted as {@value
 * #UNKNOWN_TOOL} so that callers cannot create series at will. No tenant label: tenants are many,
 * and metrics are not the place to tell them apart.
 */
public final class LedgerMetrics implements OutcomeListener {
  /** The tool label of a call that named no registered tool. */
  public static final String UNKNOWN_TOOL = "_unknown";

  static final String REQUESTS = "toolledger.requests";
  static final String EFFECTS = "toolledger.effects";
  static final String DURATION = "toolledger.request.duration";
  static final String RECOVERIES = "toolledger.recovery.settlements";

  private final MeterRegistry registry;
  private final Predicate<String> knownTool;
  private final Map<String, Counter> requests = new ConcurrentHashMap<>();
  private final Map<String, Counter> effects = new ConcurrentHashMap<>();
  private final Map<String, Timer> durations = new ConcurrentHashMap<>();
  private final Map<String, Counter> recoveries = new ConcurrentHashMap<>();

  /**
   * @param knownTool whether a name is a registered tool's
   */
  public LedgerMetrics(MeterRegistry registry, Predicate<String> knownTool) {
    this.registry = registry;
    this.knownTool = knownTool;
  }

  @Override
  public void onOutcome(TenantId tenant, String tool, String kind, Duration duration) {
    String label = label(tool);
    String id = label + '\u0000' + kind;
    requests
        .computeIfAbsent(
            id,
            ignored ->
                Counter.builder(REQUESTS)
                    .description("Tool invocations by outcome; replays and refusals included")
                    .tag("tool", label)
                    .tag("outcome", kind)
                    .register(registry))
        .increment();
    durations
        .computeIfAbsent(
            id,
            ignored ->
                Timer.builder(DURATION)
                    .description("Time to decide and, for a new key, execute an invocation")
                    .tag("tool", label)
                    .tag("outcome", kind)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(60))
                    .register(registry))
        .record(duration);
  }

  @Override
  public void onEffect(TenantId tenant, String tool) {
    String label = label(tool);
    effects
        .computeIfAbsent(
            label,
            ignored ->
                Counter.builder(EFFECTS)
                    .description("Fresh executions that committed a business effect; never replays")
                    .tag("tool", label)
                    .register(registry))
        .increment();
  }

  /** Counts what one pass of the recovery worker settled. */
  public void onRecovery(RecoveryReport report) {
    recovered("completed", report.completed());
    recovered("not_executed", report.notExecuted());
    recovered("unknown", report.unknown());
    recovered("released", report.released());
    recovered("still_in_progress", report.stillInProgress());
    recovered("lost", report.lost());
  }

  private void recovered(String outcome, int count) {
    if (count == 0) {
      return;
    }
    recoveries
        .computeIfAbsent(
            outcome,
            ignored ->
                Counter.builder(RECOVERIES)
                    .description("Expired claims the recovery worker settled, by outcome")
                    .tag("outcome", outcome)
                    .register(registry))
        .increment(count);
  }

  private String label(String tool) {
    return tool != null && knownTool.test(tool) ? tool : UNKNOWN_TOOL;
  }
}
