package dev.toolledger.testkit.history;

import java.util.Objects;

/** One broken promise: which rule, for which key, and what was seen. */
public record Violation(Rule rule, String key, String detail) {
  public Violation {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return rule + " " + key + ": " + detail;
  }
}
