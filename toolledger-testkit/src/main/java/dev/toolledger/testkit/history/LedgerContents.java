package dev.toolledger.testkit.history;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the database holds after a run, for one tenant.
 *
 * @param operations the ledger's record of each key
 * @param effects how many effects the tool's own tables hold for each key (a key without effects
 *     may be absent)
 * @param strayEffects effects that no request of the run asked for, described for the report
 */
public record LedgerContents(
    Map<String, Operation> operations, Map<String, Integer> effects, List<String> strayEffects) {
  public LedgerContents {
    operations = Map.copyOf(operations);
    effects = Map.copyOf(effects);
    strayEffects = List.copyOf(strayEffects);
  }

  /**
   * One row of the ledger.
   *
   * @param state {@code COMPLETED}, {@code IN_PROGRESS}, {@code UNKNOWN}, {@code NOT_EXECUTED}
   * @param status the recorded status, 0 when none is recorded
   * @param body the recorded body, empty when none is recorded
   */
  public record Operation(String key, String state, int status, String body) {
    public Operation {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(body, "body");
    }
  }

  /**
   * These contents with more effects counted, from another place the run's tools write to (an
   * upstream service's own count, say).
   */
  public LedgerContents plusEffects(Map<String, Integer> more) {
    Map<String, Integer> all = new java.util.HashMap<>(effects);
    more.forEach((key, count) -> all.merge(key, count, Integer::sum));
    return new LedgerContents(operations, all, strayEffects);
  }

  public int effectsOf(String key) {
    return effects.getOrDefault(key, 0);
  }
}
