package dev.toolledger.testkit.history;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the checker found: the violations, and the figures a report publishes.
 *
 * @param keys keys that tool calls were sent under
 * @param calls requests sent, tool calls and lookups
 * @param acknowledged keys with at least one acknowledged answer
 * @param openAnswers answers that left the caller not knowing the outcome
 * @param stillUnknown keys a lookup after the run reports as unknown
 * @param lost acknowledged keys whose outcome is missing, changed or not replayed
 * @param duplicated keys with more than one effect or execution
 * @param longestWait the longest a request waited for its answer
 */
public record Verdict(
    List<Violation> violations,
    int keys,
    int calls,
    int acknowledged,
    int openAnswers,
    int stillUnknown,
    int lost,
    int duplicated,
    Duration longestWait) {
  public Verdict {
    violations = List.copyOf(violations);
  }

  public boolean holds() {
    return violations.isEmpty();
  }

  /** The violations of one rule. */
  public List<Violation> of(Rule rule) {
    return violations.stream().filter(v -> v.rule() == rule).toList();
  }

  /**
   * Fails when any rule is broken.
   *
   * @throws AssertionError naming the first violations when any rule is broken
   */
  public Verdict assertHolds() {
    if (!holds()) {
      throw new AssertionError(
          violations.size()
              + " violation(s) of the history's rules ("
              + figures()
              + "):\n"
              + violations.stream()
                  .limit(30)
                  .map(Violation::toString)
                  .collect(Collectors.joining("\n")));
    }
    return this;
  }

  /** The figures as one line, for logs and reports. */
  public String figures() {
    return "keys="
        + keys
        + " calls="
        + calls
        + " acknowledged="
        + acknowledged
        + " open-answers="
        + openAnswers
        + " still-unknown="
        + stillUnknown
        + " lost="
        + lost
        + " duplicated="
        + duplicated
        + " longest-wait="
        + longestWait.toMillis()
        + "ms";
  }
}
