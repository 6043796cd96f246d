package dev.toolledger.bench.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.toolledger.bench.BenchOptions;
import dev.toolledger.bench.BenchReport;
import dev.toolledger.bench.Harness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code toolledger bench}: the cost of safety, side by side with the alternatives. A runnable of
 * its own ({@code toolledger-bench.jar}, started by {@code ./toolledger bench} in a checkout), so
 * that the product jar carries no benchmark, peer or chart library.
 */
@Command(
    name = "toolledger bench",
    mixinStandardHelpOptions = true,
    subcommands = {BenchCommand.Scale.class, BenchCommand.Memory.class},
    description =
        "Measure the ledger's scenarios (bare-insert, keyed-create, keyed-create-limited,"
            + " replay, two-phase, keyed-floor, keyed-floor-decided, http-keyed-create, http-replay,"
            + " mcp-keyed-create"
            + " with the MCP SDK's client on its own transport, mcp-lean-keyed-create with the SDK's"
            + " client on toolledger-client-mcp's lean transport, mcp-raw-keyed-create with raw"
            + " JSON-RPC) interleaved on"
            + " SQLite FULL and NORMAL and, with a PostgreSQL --db, on PostgreSQL; print ops/s,"
            + " p50, p99, the ratios, CPU per operation and operations per commit.")
public final class BenchCommand implements Callable<Integer> {

  /** Runs the harness's command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(
        new CommandLine(new BenchCommand())
            .setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                  commandLine.getErr().println("toolledger bench: " + e.getMessage());
                  return 1;
                })
            .execute(args));
  }

  @Option(
      names = "--db",
      paramLabel = "PATH|JDBC-URL",
      description =
          "Where to measure; repeatable. A path: the directory (or a file in it) for the SQLite"
              + " ledgers. A jdbc:postgresql: URL: PostgreSQL too, in a schema of its own that is"
              + " dropped afterwards. Default: a temporary directory.")
  List<String> dbs = new ArrayList<>();

  @Option(
      names = "--seconds",
      description =
          "Measured seconds per scenario and configuration (default: 5; --quick: 0.6, in 300 ms"
              + " slices).")
  Integer seconds;

  @Option(
      names = "--threads",
      split = ",",
      paramLabel = "LIST",
      description = "Thread (client) counts, e.g. 1,16 (default: ${DEFAULT-VALUE}).",
      defaultValue = "1,16")
  List<Integer> threads;

  @Option(names = "--json", paramLabel = "FILE", description = "Write the results as JSON.")
  Path json;

  @Option(
      names = "--scenarios",
      split = ",",
      paramLabel = "LIST",
      description = "Only these scenarios, e.g. keyed-create,http-keyed-create (default: all).")
  List<String> scenarios = new ArrayList<>();

  @Option(names = "--chart", paramLabel = "FILE", description = "Write a PNG bar chart.")
  Path chart;

  @Option(
      names = "--quick",
      description = "A short run: about a minute on SQLite, two with PostgreSQL.")
  boolean quick;

  @Option(
      names = "--progress",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "Draw a progress bar on standard error (default: ${DEFAULT-VALUE}).")
  boolean progress;

  @Override
  public Integer call() throws Exception {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    Path sqliteDirectory = null;
    Optional<String> postgres = Optional.empty();
    for (String db : dbs) {
      if (db.startsWith("jdbc:postgresql:")) {
        postgres = Optional.of(db);
      } else {
        Path path = Path.of(db);
        sqliteDirectory = Files.isDirectory(path) ? path : path.toAbsolutePath().getParent();
      }
    }
    Path temporary = null;
    if (sqliteDirectory == null) {
      temporary = Files.createTempDirectory("toolledger-bench-");
      sqliteDirectory = temporary;
    }
    int rounds = quick ? 2 : 5;
    // Quick: 300 ms slices, so that every scenario on SQLite and PostgreSQL fits in a minute.
    Duration slice =
        seconds == null && quick
            ? Duration.ofMillis(300)
            : Duration.ofMillis(Math.max(100, (seconds != null ? seconds : 5) * 1000L / rounds));
    BenchOptions options =
        new BenchOptions(
            sqliteDirectory,
            postgres,
            slice,
            rounds,
            threads,
            Optional.ofNullable(json),
            Optional.ofNullable(chart),
            progress,
            scenarios);
    try {
      BenchReport report = new Harness(options, System.err).run();
      report.print(System.out);
      if (json != null) {
        report.writeJson(json);
        System.out.println("wrote " + json);
      }
      if (chart != null) {
        report.writeChart(chart);
        System.out.println("wrote " + chart);
      }
      return 0;
    } finally {
      if (temporary != null) {
        try (var files = Files.walk(temporary)) {
          for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }

  static Path temporaryDirectoryOr(List<String> dbs) throws java.io.IOException {
    for (String db : dbs) {
      if (!db.startsWith("jdbc:")) {
        Path path = Path.of(db);
        return Files.isDirectory(path) ? path : path.toAbsolutePath().getParent();
      }
    }
    return Files.createTempDirectory("toolledger-bench-");
  }

  static Optional<String> postgres(List<String> dbs) {
    return dbs.stream().filter(db -> db.startsWith("jdbc:postgresql:")).findFirst();
  }

  /** {@code toolledger bench scale}: millions of records against thousands. */
  @Command(
      name = "scale",
      mixinStandardHelpOptions = true,
      description =
          "Fill one ledger with --small records and another with --large (plus --expired past"
              + " their retention), then measure keyed-create and lookup on both, interleaved, and"
              + " keyed-create on the large one while a sweeper deletes the expired records."
              + " Needs disk: about 300 bytes a record.")
  static final class Scale implements Callable<Integer> {
    @Option(names = "--db", paramLabel = "PATH|JDBC-URL", description = "As for bench.")
    List<String> dbs = new ArrayList<>();

    @Option(names = "--small", defaultValue = "10000", description = "Default: ${DEFAULT-VALUE}.")
    long small;

    @Option(
        names = "--large",
        defaultValue = "10000000",
        description = "Default: ${DEFAULT-VALUE}.")
    long large;

    @Option(
        names = "--expired",
        defaultValue = "2000000",
        description =
            "Records past their retention added to the large ledger, for the sweeper to delete"
                + " beside the writers (default: ${DEFAULT-VALUE}).")
    long expired;

    @Option(
        names = "--sweep-batch",
        defaultValue = "500",
        description = "Records the sweeper deletes per transaction (default: ${DEFAULT-VALUE}).")
    int sweepBatch;

    @Option(
        names = "--seconds",
        defaultValue = "10",
        description = "Per scenario (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--threads", defaultValue = "1", description = "Default: ${DEFAULT-VALUE}.")
    int threads;

    @Override
    public Integer call() throws Exception {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
      Path directory = temporaryDirectoryOr(dbs);
      int rounds = 5;
      var bench =
          new dev.toolledger.bench.ScaleBench(
              new dev.toolledger.bench.ScaleBench.Options(
                  directory,
                  postgres(dbs),
                  small,
                  large,
                  expired,
                  sweepBatch,
                  Duration.ofMillis(Math.max(100, seconds * 1000L / rounds)),
                  rounds,
                  threads,
                  true),
              System.err);
      var results = bench.run();
      bench.print(results, small, large, System.out);
      System.out.println("(ledger files are in " + directory + "; delete them when done)");
      return 0;
    }
  }

  /** {@code toolledger bench memory}: the heap of a server over a million records. */
  @Command(
      name = "memory",
      mixinStandardHelpOptions = true,
      description =
          "Fill a SQLite ledger with --records operations, serve it over HTTP, drive lookups and"
              + " creates, then report the heap in use after a full collection. Run with"
              + " TOOLLEDGER_JAVA_OPTS=-Xmx256m to show it fits.")
  static final class Memory implements Callable<Integer> {
    @Option(names = "--db", paramLabel = "PATH", description = "Directory for the ledger file.")
    List<String> dbs = new ArrayList<>();

    @Option(
        names = "--records",
        defaultValue = "1000000",
        description = "Default: ${DEFAULT-VALUE}.")
    long records;

    @Option(names = "--seconds", defaultValue = "30", description = "Default: ${DEFAULT-VALUE}.")
    int seconds;

    @Option(names = "--clients", defaultValue = "16", description = "Default: ${DEFAULT-VALUE}.")
    int clients;

    @Override
    public Integer call() throws Exception {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
      Path directory = temporaryDirectoryOr(dbs);
      var result =
          dev.toolledger.bench.MemoryBench.run(
              directory, records, Duration.ofSeconds(seconds), clients, System.err);
      System.out.printf(
          "records %d, requests %d (errors %d), heap in use after a full GC %.1f MiB, max heap"
              + " %.1f MiB%n",
          result.records(),
          result.requests(),
          result.errors(),
          result.heapUsedAfterGcBytes() / 1048576.0,
          result.maxHeapBytes() / 1048576.0);
      System.out.println("(ledger file is in " + directory + "; delete it when done)");
      return result.errors() == 0 ? 0 : 1;
    }
  }
}
