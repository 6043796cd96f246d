package dev.toolledger.bench;

import dev.toolledger.core.engine.SweepReport;
import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.protocol.OperationKey;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 * keyed-create and lookup of a random existing key on each. The large ledger also holds {@code
 * expired} records past their retention, and a fifth scenario runs keyed-create on it while a
 * sweeper deletes them beside the writers, in the sweeper's batches, to show that sweeping does not
 * stall writers.
 */
public final class ScaleBench {
  /**
   * The sizes of one run.
   *
   * @param small records in the small ledger (e.g. 10,000)
   * @param large records in the large ledger (e.g. 10,000,000)
   * @param expired records past their retention, added to the large ledger for the sweeper
   * @param sweepBatch records the sweeper deletes per transaction
   */
  public record Options(
      Path directory,
      Optional<String> postgresUrl,
      long small,
      long large,
      long expired,
      int sweepBatch,
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

  /** What the sweeper did beside the writers, by store. */
  public final Map<String, SweepStats> sweeps = new LinkedHashMap<>();

  /** The sweeper's work during the measured slices of one store. */
  public static final class SweepStats {
    long swept;
    long batches;
    long maxBatchNanos;
    long batchNanos;
    long measuredNanos;
    boolean ranOut;
  }

  /** Results by store, then by scenario name ("keyed-create@10000"). */
  public Map<String, Map<String, Measurement>> run() throws Exception {
    Map<String, Map<String, Measurement>> all = new LinkedHashMap<>();
    List<String> stores = new ArrayList<>(List.of("sqlite-full"));
    options.postgresUrl().ifPresent(url -> stores.add("postgresql"));
    for (String store : stores) {
      try (Target small = open(store, "small");
          Target large = open(store, "large")) {
        Fill.operations(small.store, options.small(), progress);
        Fill.operations(large.store, options.large(), progress);
        long yesterday = System.currentTimeMillis() - 24L * 3600 * 1000;
        Fill.operations(large.store, "expired-", options.expired(), yesterday, progress);
        SweepStats sweep = new SweepStats();
        sweeps.put(store, sweep);
        List<Scenario> scenarios =
            List.of(
                keyedCreate(small, options.small()),
                keyedCreate(large, options.large()),
                keyedCreateWhileSweeping(large, options.large(), options.sweepBatch(), sweep),
                lookup(small, options.small()),
                lookup(large, options.large()),
                new LookupFloor(small, options.small()),
                new LookupFloor(large, options.large()));
        if (all.isEmpty()) {
          progress.total((long) stores.size() * scenarios.size() * (options.rounds() + 1));
        }
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
                    false,
                    List.of()),
                System.err);
        for (int round = 0; round <= options.rounds(); round++) {
          for (Scenario scenario : scenarios) {
            progress.label(store + " " + scenario.name());
            harness.slice(
                scenario, options.threads(), round == 0 ? null : results.get(scenario.name()));
            progress.step();
          }
        }
        for (Scenario scenario : scenarios) {
          if (scenario instanceof AutoCloseable closeable) {
            closeable.close();
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
    Scenario create = EngineScenarios.keyedCreate(target, target.keys);
    return DefinedScenario.local("keyed-create@" + records, create::run);
  }

  /**
   * keyed-create while the engine's own sweep ({@code LedgerEngine.sweep}, what the background
   * sweeper runs) deletes expired records beside the writers, pass after pass, for the whole slice;
   * the slice's end interrupts the pass in progress. Only the slices count in the figures; the
   * warm-up round sweeps too.
   */
  private static Scenario keyedCreateWhileSweeping(
      Target target, long records, int batch, SweepStats stats) {
    Scenario create = EngineScenarios.keyedCreate(target, target.keys);
    return new Scenario() {
      private volatile boolean stop;
      private Thread sweeper;
      private long sliceStart;

      @Override
      public String name() {
        return "keyed-create+sweep@" + records;
      }

      @Override
      public void run(int thread, long sequence) throws Exception {
        create.run(thread, sequence);
      }

      @Override
      public void beforeSlice() {
        stop = false;
        sliceStart = System.nanoTime();
        sweeper =
            new Thread(
                () -> {
                  while (!stop && !Thread.currentThread().isInterrupted()) {
                    SweepReport report = target.app.engine().sweep(batch);
                    synchronized (stats) {
                      stats.swept += report.swept();
                      stats.batches += report.transactions();
                      stats.maxBatchNanos =
                          Math.max(stats.maxBatchNanos, report.longestBatch().toNanos());
                      stats.batchNanos += report.batchTime().toNanos();
                      if (report.complete() && report.swept() == 0) {
                        stats.ranOut = true;
                        return;
                      }
                    }
                  }
                },
                "bench-sweeper");
        sweeper.setDaemon(true);
        sweeper.start();
      }

      @Override
      public void afterSlice() {
        stop = true;
        sweeper.interrupt();
        try {
          sweeper.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        synchronized (stats) {
          stats.measuredNanos += System.nanoTime() - sliceStart;
        }
      }
    };
  }

  private static Scenario lookup(Target target, long records) {
    return DefinedScenario.local(
        "lookup@" + records,
        (thread, sequence) -> {
          long n = 1 + ThreadLocalRandom.current().nextLong(records);
          if (target.app.engine().lookup(Target.TENANT, OperationKey.of("fill-" + n)).isEmpty()) {
            throw new IllegalStateException("fill-" + n + " is missing");
          }
        });
  }

  /**
   * The floor under lookup: the record's row read with plain SQL (the statement the store runs), on
   * a connection and prepared statement each client thread holds for the whole run, with no engine
   * and no record built from it. If this slows down from the small ledger to the large one as much
   * as lookup does, the slowdown is the database's B-tree and caches, not the engine.
   */
  private static final class LookupFloor implements Scenario, AutoCloseable {
    private static final String SQL =
        "SELECT tenant, op_key, tool, tool_version, fingerprint, state, response_status,"
            + " response_body, created_at, completed_at, expires_at FROM tl_operations"
            + " WHERE tenant = ? AND op_key = ?";

    private record Held(Connection connection, PreparedStatement statement) {}

    private final Target target;
    private final long records;
    // By the harness's thread index, not by Thread: every slice starts new threads.
    private final Map<Integer, Held> held = new java.util.concurrent.ConcurrentHashMap<>();

    LookupFloor(Target target, long records) {
      this.target = target;
      this.records = records;
    }

    @Override
    public String name() {
      return "lookup-floor@" + records;
    }

    @Override
    public void run(int thread, long sequence) throws Exception {
      Held mine = held.get(thread);
      if (mine == null) {
        // A connection of the store's own pool, so opened with exactly the settings (journal mode,
        // synchronous, busy timeout, page cache) the product's read connections have: the ratio
        // compares designs, not settings. The statement is prepared on the driver's connection
        // beneath the pool's proxy, so the floor pays no pool machinery at all.
        Connection connection = target.store.dataSource().getConnection();
        mine = new Held(connection, connection.unwrap(Connection.class).prepareStatement(SQL));
        held.put(thread, mine);
      }
      long n = 1 + ThreadLocalRandom.current().nextLong(records);
      mine.statement().setString(1, Target.TENANT.value());
      mine.statement().setString(2, "fill-" + n);
      try (ResultSet rs = mine.statement().executeQuery()) {
        if (!rs.next() || rs.getString("response_body") == null) {
          throw new IllegalStateException("fill-" + n + " is missing");
        }
      }
    }

    @Override
    public void close() throws Exception {
      for (Held h : held.values()) {
        h.statement().close();
        // Gives the pooled connection back (the statement above was on the driver's connection).
        h.connection().close();
      }
      held.clear();
    }
  }

  /** Prints each scenario, the large-to-small ratios and what the sweeper did beside writers. */
  public void print(
      Map<String, Map<String, Measurement>> results, long small, long large, PrintStream out) {
    out.printf("%-14s %-26s %11s %9s %9s%n", "store", "scenario", "ops/s", "p50 ms", "p99 ms");
    for (Map.Entry<String, Map<String, Measurement>> store : results.entrySet()) {
      for (Measurement m : store.getValue().values()) {
        out.printf(
            "%-14s %-26s %11.1f %9.3f %9.3f%n",
            store.getKey(), m.scenario, m.opsPerSec(), m.p50Ms(), m.p99Ms());
      }
      for (String scenario : List.of("keyed-create", "lookup", "lookup-floor")) {
        Measurement s = store.getValue().get(scenario + "@" + small);
        Measurement l = store.getValue().get(scenario + "@" + large);
        if (s == null || l == null) {
          continue;
        }
        double slowdown = s.opsPerSec() / l.opsPerSec();
        // The floor has no target of its own: it shows how much of lookup's slowdown is SQL's.
        String verdict =
            scenario.equals("lookup-floor")
                ? "no target: plain SQL"
                : "target <= 1.2: " + (slowdown <= 1.2 ? "met" : "NOT MET");
        out.printf(
            "%s %s: %d records are %.2fx slower than %d (%s)%n",
            store.getKey(), scenario, large, slowdown, small, verdict);
      }
      Measurement alone = store.getValue().get("keyed-create@" + large);
      Measurement swept = store.getValue().get("keyed-create+sweep@" + large);
      SweepStats stats = sweeps.get(store.getKey());
      if (alone != null && swept != null && stats != null) {
        out.printf(
            "%s sweeper beside writers: %d expired records deleted in %d batches of up to %d"
                + " (%.0f records/s, mean batch %.1f ms, longest %.1f ms, batches %.1f%% of the"
                + " time%s); keyed-create"
                + " %.1f ops/s with it, %.1f without (%.2fx), p99 %.3f ms with it, %.3f"
                + " without%n",
            store.getKey(),
            stats.swept,
            stats.batches,
            options.sweepBatch(),
            stats.measuredNanos == 0 ? 0.0 : stats.swept * 1e9 / stats.measuredNanos,
            stats.batches == 0 ? 0.0 : stats.batchNanos / 1e6 / stats.batches,
            stats.maxBatchNanos / 1e6,
            stats.measuredNanos == 0 ? 0.0 : 100.0 * stats.batchNanos / stats.measuredNanos,
            stats.ranOut ? "; it ran out of expired records, use more --expired" : "",
            swept.opsPerSec(),
            alone.opsPerSec(),
            swept.opsPerSec() / alone.opsPerSec(),
            swept.p99Ms(),
            alone.p99Ms());
      }
    }
  }
}
