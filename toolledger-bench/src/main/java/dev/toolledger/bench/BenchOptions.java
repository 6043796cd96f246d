package dev.toolledger.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What to measure and how long.
 *
 * @param sqliteDirectory where the SQLite ledgers (FULL and NORMAL) are created
 * @param postgresUrl a PostgreSQL database to measure too (a schema of its own is created and
 *     dropped), if any
 * @param slice how long one scenario runs before the next one takes its turn
 * @param rounds how many counted turns each scenario gets (after one warm-up turn)
 * @param threads the thread (client) counts to measure at
 * @param json where to write the results as JSON, if anywhere
 * @param chart where to write a PNG bar chart of the results, if anywhere
 * @param progress whether to draw a progress bar on standard error
 * @param scenarios the scenarios to run, by name; empty for all of them
 */
public record BenchOptions(
    Path sqliteDirectory,
    Optional<String> postgresUrl,
    Duration slice,
    int rounds,
    List<Integer> threads,
    Optional<Path> json,
    Optional<Path> chart,
    boolean progress,
    List<String> scenarios) {
  public BenchOptions {
    scenarios = List.copyOf(scenarios);
    for (String name : scenarios) {
      if (!Scenarios.NAMES.contains(name)) {
        throw new IllegalArgumentException(
            "no scenario named '" + name + "'; the scenarios are " + Scenarios.NAMES);
      }
    }
    Objects.requireNonNull(sqliteDirectory, "sqliteDirectory");
    Objects.requireNonNull(postgresUrl, "postgresUrl");
    Objects.requireNonNull(slice, "slice");
    threads = List.copyOf(threads);
    if (slice.toMillis() < 100) {
      throw new IllegalArgumentException("a slice must be at least 100 ms");
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be at least 1");
    }
    if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 512)) {
      throw new IllegalArgumentException("threads must be 1 to 512 each");
    }
  }
}
