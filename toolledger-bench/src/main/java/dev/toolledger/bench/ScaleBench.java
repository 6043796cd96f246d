package dev.toolledger.bench;

import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.jdbc.Synchronous;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Does the ledger stay as fast when it holds millions of records? Two ledgers side by side, one
 * filled with a small number of records and one with a large number, measured interleaved:
 * keyed-create and lookup of a random existing key on each.
 */
public final class ScaleBench {
  /**
   * @param small records in the small ledger (e.g. 10,000)
   * @param large records in the large ledger (e.g. 10,000,000)
   */
  public record Options(
      Path directory,
      Optional<String> postgresUrl,
      long small,
      long large,
      Duration slice,
      int rounds,
      int threads,
      boolean progress) {}

  private final Options options;
  private final Harness.Progress progress;

  public ScaleBench(Options options, PrintStream err) {
    this.options = options;
    this.progress = new Harness.Progress(err, options.progress());
  }

  /** Results by store, then by scenario name ("keyed-create@10000"). */
  public Map<String, Map<String, Measurement>> run() throws Exception {
    Map<String, Map<String, Measurement>> all = new LinkedHashMap<>();
    List<String> stores = new ArrayList<>(List.of("sqlite-full"));
    options.postgresUrl().ifPresent(url -> stores.add("postgresql"));
    progress.total((long) stores.size() * 4 * (options.rounds() + 1));
    for (String store : stores) {
      try (Target small = open(store, "small");
          Target large = open(store, "large")) {
        Fill.operations(small.store, options.small(), progress);
        Fill.operations(large.store, options.large(), progress);
        List<Scenario> scenarios =
            List.of(
                keyedCreate(small, options.small()),
                keyedCreate(large, options.large()),
                lookup(small, options.small()),
                lookup(large, options.large()));
        Map<String, Measurement> results = new LinkedHashMap<>();
        for (Scenario scenario : scenarios) {
          results.put(scenario.name(), new Measurement(store, scenario.name(), options.threads()));
        }
        Harness harness =
            new Harness(
                new BenchOptions(
                    options.directory(),
                    Optional.empty(),
                    options.slice(),
                    options.rounds(),
                    List.of(options.threads()),
                    Optional.empty(),
                    Optional.empty(),
                    false),
                System.err);
        for (int round = 0; round <= options.rounds(); round++) {
          for (Scenario scenario : scenarios) {
            progress.label(store + " " + scenario.name());
            harness.slice(
                scenario, options.threads(), round == 0 ? null : results.get(scenario.name()));
            progress.step();
          }
        }
        all.put(store, results);
      }
    }
    progress.done();
    return all;
  }

  private Target open(String store, String size) {
    if (store.equals("postgresql")) {
      return Target.postgres(options.postgresUrl().orElseThrow());
    }
    return Target.sqlite(
        store,
        options.directory().resolve("scale-" + size + "-" + Target.randomHex(3) + ".db"),
        Synchronous.FULL);
  }

  private static Scenario keyedCreate(Target target, long records) {
    Scenario create = new Scenarios.KeyedCreate(target, target.keys);
    return named("keyed-create@" + records, (Operation) create::run);
  }

  private static Scenario lookup(Target target, long records) {
    return named(
        "lookup@" + records,
        (Operation)
            (thread, sequence) -> {
              long n = 1 + ThreadLocalRandom.current().nextLong(records);
              if (target
                  .app
                  .engine()
                  .lookup(Target.TENANT, OperationKey.of("fill-" + n))
                  .isEmpty()) {
                throw new IllegalStateException("fill-" + n + " is missing");
              }
            });
  }

  /** One operation of a scenario built from a lambda. */
  @FunctionalInterface
  private interface Operation {
    void run(int thread, long sequence) throws Exception;
  }

  private static Scenario named(String name, Operation scenario) {
    return new Scenario() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void run(int thread, long sequence) throws Exception {
        scenario.run(thread, sequence);
      }
    };
  }

  /** Prints each scenario and the large-to-small ratios. */
  public static void print(
      Map<String, Map<String, Measurement>> results, long small, long large, PrintStream out) {
    out.printf("%-14s %-26s %11s %9s %9s%n", "store", "scenario", "ops/s", "p50 ms", "p99 ms");
    for (Map.Entry<String, Map<String, Measurement>> store : results.entrySet()) {
      for (Measurement m : store.getValue().values()) {
        out.printf(
            "%-14s %-26s %11.1f %9.3f %9.3f%n",
            store.getKey(), m.scenario, m.opsPerSec(), m.p50Ms(), m.p99Ms());
      }
      for (String scenario : List.of("keyed-create", "lookup")) {
        Measurement s = store.getValue().get(scenario + "@" + small);
        Measurement l = store.getValue().get(scenario + "@" + large);
        double slowdown = s.opsPerSec() / l.opsPerSec();
        out.printf(
            "%s %s: %d records are %.2fx slower than %d (target <= 1.2: %s)%n",
            store.getKey(), scenario, large, slowdown, small, slowdown <= 1.2 ? "met" : "NOT MET");
      }
    }
  }
}
