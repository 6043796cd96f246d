package dev.toolledger.bench;

import dev.toolledger.jdbc.Synchronous;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Runs every scenario of every target at every thread count, interleaved: the scenarios of one
 * configuration take turns slice by slice (A, B, C, A, B, C, ...) after a warm-up turn each, so
 * that a machine that speeds up or slows down during the run affects them alike and their ratios
 * hold.
 */
public final class Harness {
  private final BenchOptions options;
  private final Progress progress;

  public Harness(BenchOptions options, PrintStream err) {
    this.options = options;
    this.progress = new Progress(err, options.progress());
  }

  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean)
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  public BenchReport run() throws Exception {
    List<TargetSpec> specs = new ArrayList<>();
    specs.add(new TargetSpec("sqlite-full", Synchronous.FULL));
    specs.add(new TargetSpec("sqlite-normal", Synchronous.NORMAL));
    if (options.postgresUrl().isPresent()) {
      specs.add(new TargetSpec("postgresql", null));
    }
    List<String> chosen = options.scenarios().isEmpty() ? Scenarios.NAMES : options.scenarios();
    long slices = 0;
    for (TargetSpec spec : specs) {
      // The peer's scenarios run on PostgreSQL only.
      slices +=
          chosen.stream()
              .filter(n -> spec.synchronous() == null || !Scenarios.POSTGRES_ONLY.contains(n))
              .count();
    }
    progress.total(slices * options.threads().size() * (options.rounds() + 1));

    BenchReport report = new BenchReport();
    for (TargetSpec spec : specs) {
      try (Target target = open(spec)) {
        if (target.directory.isPresent()) {
          progress.label(target.name + " disk probe");
          double rate =
              DiskProbe.syncWritesPerSecond(
                  target.directory.get(), options.slice().multipliedBy(2));
          report.disk.put(target.name, rate);
        }
        for (int threads : options.threads()) {
          List<Scenario> scenarios =
              target.scenarios().stream()
                  .filter(
                      s -> options.scenarios().isEmpty() || options.scenarios().contains(s.name()))
                  .toList();
          Map<String, Measurement> results = new LinkedHashMap<>();
          for (Scenario scenario : scenarios) {
            results.put(scenario.name(), new Measurement(target.name, scenario.name(), threads));
          }
          for (int round = 0; round <= options.rounds(); round++) {
            for (Scenario scenario : scenarios) {
              progress.label(target.name + " t=" + threads + " " + scenario.name());
              Measurement into = round == 0 ? null : results.get(scenario.name());
              long commitsBefore = target.store.commits();
              long cpuBefore = PROCESS.getProcessCpuTime();
              Map<Long, Long> serverBefore = serverThreadsCpu();
              slice(scenario, threads, into);
              if (into != null) {
                // The node's window lies inside the process's: its share never exceeds the whole.
                into.serverCpuNanos += serverCpuSince(serverBefore);
                into.commits += target.store.commits() - commitsBefore;
                into.cpuNanos += PROCESS.getProcessCpuTime() - cpuBefore;
              }
              progress.step();
            }
          }
          long before = target.store.writeTransactions();
          for (int i = 0; i < 200; i++) {
            EngineScenarios.replay(target).run(0, i);
          }
          report.writesPerReplay.put(
              target.name, (target.store.writeTransactions() - before) / 200.0);
          report.results.addAll(results.values());
          for (Scenario scenario : scenarios) {
            if (scenario instanceof AutoCloseable closeable) {
              closeable.close();
            }
          }
        }
      }
    }
    progress.done();
    return report;
  }

  private Target open(TargetSpec spec) {
    if (spec.synchronous() == null) {
      return Target.postgres(options.postgresUrl().orElseThrow());
    }
    return Target.sqlite(
        spec.name(),
        options
            .sqliteDirectory()
            .resolve("bench-" + spec.name() + "-" + Target.randomHex(3) + ".db"),
        spec.synchronous());
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** The CPU time so far of each live thread of the node (named {@code toolledger-*}), by id. */
  static Map<Long, Long> serverThreadsCpu() {
    Map<Long, Long> cpu = new java.util.HashMap<>();
    for (java.lang.management.ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("toolledger-")) {
        long nanos = THREADS.getThreadCpuTime(info.getThreadId());
        if (nanos >= 0) {
          cpu.put(info.getThreadId(), nanos);
        }
      }
    }
    return cpu;
  }

  /** The node's threads' CPU since {@code before}; threads started since count from zero. */
  static long serverCpuSince(Map<Long, Long> before) {
    long total = 0;
    for (Map.Entry<Long, Long> now : serverThreadsCpu().entrySet()) {
      total += now.getValue() - before.getOrDefault(now.getKey(), 0L);
    }
    return total;
  }

  /** Runs one scenario with {@code threads} threads for one slice; records into {@code into}. */
  void slice(Scenario scenario, int threads, Measurement into) throws InterruptedException {
    Duration slice = options.slice();
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(threads);
    AtomicLong operations = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    List<Histogram> histograms = new ArrayList<>();
    long[] window = new long[2];
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Histogram histogram = new Histogram(3_600_000_000_000L, 3);
      histograms.add(histogram);
      Thread worker =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  go.await();
                  long end = window[1];
                  long sequence = 0;
                  while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    try {
                      scenario.run(thread, sequence++);
                      histogram.recordValue(System.nanoTime() - start);
                      operations.incrementAndGet();
                    } catch (Exception | Error e) {
                      if (failures.incrementAndGet() == 1) {
                        System.err.println(
                            "toolledger bench: " + scenario.name() + " failed: " + e);
                      }
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  finished.countDown();
                }
              },
              "bench-" + scenario.name() + "-" + t);
      worker.setDaemon(true);
      worker.start();
    }
    ready.await();
    scenario.beforeSlice();
    window[0] = System.nanoTime();
    window[1] = window[0] + slice.toNanos();
    go.countDown();
    finished.await();
    long elapsed = System.nanoTime() - window[0];
    scenario.afterSlice();
    if (into != null) {
      into.operations += operations.get();
      into.failures += failures.get();
      into.nanos += elapsed;
      for (Histogram histogram : histograms) {
        into.latencies.add(histogram);
      }
    }
  }

  private record TargetSpec(String name, Synchronous synchronous) {}

  /** A one-line progress bar on standard error. */
  static final class Progress {
    private final PrintStream err;
    private final boolean enabled;
    private long total = 1;
    private long done;
    private String label = "";

    Progress(PrintStream err, boolean enabled) {
      this.err = err;
      this.enabled = enabled;
    }

    void total(long total) {
      this.total = Math.max(1, total);
    }

    void label(String label) {
      this.label = label;
      draw();
    }

    void step() {
      done++;
      draw();
    }

    private void draw() {
      if (!enabled) {
        return;
      }
      int width = 30;
      int filled = (int) (width * Math.min(1.0, (double) done / total));
      String bar = "#".repeat(filled) + ".".repeat(width - filled);
      String line = String.format("\r[%s] %3d%% %-40s", bar, 100 * done / total, label);
      err.print(line.length() > 90 ? line.substring(0, 90) : line);
      err.flush();
    }

    void done() {
      if (enabled) {
        err.print("\r" + " ".repeat(90) + "\r");
        err.flush();
      }
    }
  }
}
