package dev.toolledger.testkit.history;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads a run's whole history against what the database holds afterwards and reports every broken
 * {@link Rule}. It trusts nothing the nodes say about themselves during the run: the clients'
 * answers are what was promised, the database is what was kept, and the lookups and replays made
 * after the run are what a caller would be told now.
 *
 * <pre>{@code
 * Verdict verdict = HistoryChecker.bound(Duration.ofSeconds(10))
 *     .check(history, ledger, lookups, replays)
 *     .assertHolds();
 * }</pre>
 */
public final class HistoryChecker {
  private final Duration bound;

  private HistoryChecker(Duration bound) {
    this.bound = bound;
  }

  /** A checker that allows a request to wait at most {@code bound} for its answer. */
  public static HistoryChecker bound(Duration bound) {
    Objects.requireNonNull(bound, "bound");
    if (bound.isNegative() || bound.isZero()) {
      throw new IllegalArgumentException("bound must be positive");
    }
    return new HistoryChecker(bound);
  }

  /**
   * Checks the run's history against what the database holds and what was answered afterwards.
   *
   * @param history every request of the run
   * @param ledger what the database holds after the run
   * @param lookups what a lookup after the run said of each key whose caller was left not knowing
   * @param replays what a call of each acknowledged key after the run answered
   */
  public Verdict check(
      History history,
      LedgerContents ledger,
      Map<String, Settlement> lookups,
      Map<String, Answer> replays) {
    List<Call> calls = history.calls();
    Map<String, List<Call>> byKey = new LinkedHashMap<>();
    for (Call call : calls) {
      if (call.kind() == Call.Kind.TOOL) {
        byKey.computeIfAbsent(call.key(), k -> new ArrayList<>()).add(call);
      }
    }
    List<Violation> violations = new ArrayList<>();
    Set<String> lost = new HashSet<>();
    Set<String> duplicated = new HashSet<>();
    int acknowledged = 0;
    int stillUnknown = 0;

    for (String stray : ledger.strayEffects()) {
      violations.add(
          new Violation(Rule.ONE_EFFECT_PER_KEY, "-", "an effect no request asked for: " + stray));
    }
    for (Map.Entry<String, Integer> effects : ledger.effects().entrySet()) {
      if (effects.getValue() > 1) {
        duplicated.add(effects.getKey());
        violations.add(
            new Violation(
                Rule.ONE_EFFECT_PER_KEY,
                effects.getKey(),
                effects.getValue() + " effects in the database"));
      }
    }

    for (Map.Entry<String, List<Call>> entry : byKey.entrySet()) {
      String key = entry.getKey();
      List<Answer.Heard> acks = new ArrayList<>();
      boolean open = false;
      for (Call call : entry.getValue()) {
        if (call.answer() instanceof Answer.Heard heard && heard.acknowledged()) {
          acks.add(heard);
        }
        open |= call.answer().leavesOutcomeOpen();
      }
      long executions = acks.stream().filter(a -> !a.replayed()).count();
      if (executions > 1) {
        duplicated.add(key);
        violations.add(
            new Violation(
                Rule.ONE_EFFECT_PER_KEY,
                key,
                executions + " answers said they executed the key (Idempotent-Replayed: false)"));
      }
      if (!acks.isEmpty()) {
        acknowledged++;
        int before = violations.size();
        checkAcknowledged(key, acks, ledger, replays.get(key), violations);
        if (violations.size() > before) {
          lost.add(key);
        }
      } else if (open) {
        Settlement settled = lookups.get(key);
        if (settled == Settlement.UNKNOWN) {
          stillUnknown++;
        }
        checkSettled(key, settled, ledger, violations);
      }
    }

    Duration longest = Duration.ZERO;
    for (Call call : calls) {
      Duration waited = call.waited();
      if (waited.compareTo(longest) > 0) {
        longest = waited;
      }
      if (waited.compareTo(bound) > 0) {
        violations.add(
            new Violation(
                Rule.WAIT_BOUNDED,
                call.key(),
                call.kind().name().toLowerCase(Locale.ROOT)
                    + " waited "
                    + waited.toMillis()
                    + " ms for "
                    + describe(call.answer())
                    + ", over the bound of "
                    + bound.toMillis()
                    + " ms"));
      }
    }
    return new Verdict(
        violations,
        byKey.size(),
        calls.size(),
        acknowledged,
        (int) calls.stream().filter(c -> c.answer().leavesOutcomeOpen()).count(),
        stillUnknown,
        lost.size(),
        duplicated.size(),
        longest);
  }

  private static void checkAcknowledged(
      String key,
      List<Answer.Heard> acks,
      LedgerContents ledger,
      Answer replay,
      List<Violation> violations) {
    Answer.Heard first = acks.get(0);
    for (Answer.Heard other : acks) {
      if (other.status() != first.status() || !other.body().equals(first.body())) {
        violations.add(
            new Violation(
                Rule.ACKNOWLEDGED_DURABLE,
                key,
                "acknowledged twice with different answers: "
                    + describe(first)
                    + " and "
                    + describe(other)));
        break;
      }
    }
    LedgerContents.Operation row = ledger.operations().get(key);
    if (row == null) {
      violations.add(
          new Violation(Rule.ACKNOWLEDGED_DURABLE, key, "acknowledged but not in the ledger"));
    } else if (!row.state().equals("COMPLETED")
        || row.status() != first.status()
        || !sameJson(row.body(), first.body())) {
      violations.add(
          new Violation(
              Rule.ACKNOWLEDGED_DURABLE,
              key,
              "acknowledged "
                  + describe(first)
                  + " but the ledger holds "
                  + row.state()
                  + " "
                  + row.status()
                  + " "
                  + row.body()));
    }
    if (ledger.effectsOf(key) == 0) {
      violations.add(
          new Violation(Rule.ACKNOWLEDGED_DURABLE, key, "acknowledged but its effect is missing"));
    }
    if (!(replay instanceof Answer.Heard again)) {
      violations.add(
          new Violation(
              Rule.ACKNOWLEDGED_DURABLE,
              key,
              "no replay after the run"
                  + (replay == null ? "" : " (" + ((Answer.None) replay).reason() + ")")));
    } else if (!again.replayed()
        || again.status() != first.status()
        || !again.body().equals(first.body())) {
      violations.add(
          new Violation(
              Rule.ACKNOWLEDGED_DURABLE,
              key,
              "acknowledged "
                  + describe(first)
                  + " but replayed "
                  + describe(again)
                  + (again.replayed() ? "" : " without Idempotent-Replayed: true")));
    }
  }

  private static void checkSettled(
      String key, Settlement settled, LedgerContents ledger, List<Violation> violations) {
    LedgerContents.Operation row = ledger.operations().get(key);
    int effects = ledger.effectsOf(key);
    if (settled == null || settled == Settlement.IN_PROGRESS || settled == Settlement.UNAVAILABLE) {
      violations.add(
          new Violation(
              Rule.UNKNOWN_SETTLED,
              key,
              "left open and not settled after the run (lookup: "
                  + (settled == null ? "none" : settled)
                  + ")"));
      return;
    }
    String disagreement =
        switch (settled) {
          case NOT_FOUND ->
              row != null || effects != 0
                  ? "the lookup found no record but the database holds "
                      + (row == null ? "no row" : row.state())
                      + " and "
                      + effects
                      + " effect(s)"
                  : null;
          case COMPLETED ->
              row == null || !row.state().equals("COMPLETED")
                  ? "the lookup says COMPLETED but the ledger holds "
                      + (row == null ? "no row" : row.state())
                  : row.status() >= 200 && row.status() < 300 && effects != 1
                      ? "completed with " + row.status() + " but " + effects + " effect(s)"
                      : null;
          case NOT_EXECUTED, UNKNOWN ->
              row == null || !row.state().equals(settled.name())
                  ? "the lookup says "
                      + settled
                      + " but the ledger holds "
                      + (row == null ? "no row" : row.state())
                  : settled == Settlement.NOT_EXECUTED && effects != 0
                      ? "not executed but " + effects + " effect(s)"
                      : null;
          default -> throw new IllegalStateException("unhandled " + settled);
        };
    if (disagreement != null) {
      violations.add(new Violation(Rule.UNKNOWN_SETTLED, key, disagreement));
    }
  }

  private static boolean sameJson(String a, String b) {
    try {
      JsonNode left = Json.parse(a);
      JsonNode right = Json.parse(b);
      return left.equals(right);
    } catch (RuntimeException e) {
      return a.equals(b);
    }
  }

  private static String describe(Answer answer) {
    if (answer instanceof Answer.Heard heard) {
      String body = heard.body();
      return heard.status() + " " + (body.length() > 120 ? body.substring(0, 120) + "..." : body);
    }
    return "no answer (" + ((Answer.None) answer).reason() + ")";
  }
}
