package dev.toolledger.server;

import java.util.Map;
import java.util.OptionalDouble;

/** Reads samples out of a Prometheus text exposition, for tests. */
final class Metrics {
  private final String text;

  Metrics(String text) {
    this.text = text;
  }

  /**
   * The value of the sample named {@code name} whose labels include every given one; empty when
   * there is none.
   */
  OptionalDouble value(String name, Map<String, String> labels) {
    for (String line : text.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      String sampleName = brace >= 0 ? line.substring(0, brace) : line.substring(0, space);
      if (!sampleName.equals(name)) {
        continue;
      }
      String labelText = brace >= 0 ? line.substring(brace, line.indexOf('}') + 1) : "";
      boolean all =
          labels.entrySet().stream()
              .allMatch(e -> labelText.contains(e.getKey() + "=\"" + e.getValue() + "\""));
      if (all) {
        return OptionalDouble.of(Double.parseDouble(line.substring(space + 1)));
      }
    }
    return OptionalDouble.empty();
  }

  /** As {@link #value}, 0 when absent (a counter never incremented has no sample). */
  double count(String name, Map<String, String> labels) {
    return value(name, labels).orElse(0);
  }

  boolean has(String name) {
    return text.lines()
        .anyMatch(line -> line.startsWith(name + "{") || line.startsWith(name + " "));
  }

  @Override
  public String toString() {
    return text;
  }
}
