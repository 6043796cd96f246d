package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One short real run of the harness, the way {@code toolledger bench --db DIR --scenarios ...}
 * drives it: both SQLite stores in a temporary directory, the in-process scenarios only, at one and
 * two threads. It checks that the harness measures what it says; how fast is not its business.
 */
class HarnessTest {
  private static final List<String> SCENARIOS =
      List.of("bare-insert", "keyed-create", "replay", "keyed-floor");
  private static final List<Integer> THREADS = List.of(1, 2);
  private static final List<String> STORES = List.of("sqlite-full", "sqlite-normal");
  private static final Duration SLICE = Duration.ofMillis(100);
  private static final int ROUNDS = 2;

  @TempDir static Path dir;

  private static BenchReport report;
  private static String progress;

  @BeforeAll
  static void runTheHarness() throws Exception {
    BenchOptions options =
        new BenchOptions(
            dir,
            Optional.empty(),
            SLICE,
            ROUNDS,
            THREADS,
            Optional.empty(),
            Optional.empty(),
            true,
            SCENARIOS);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    report = new Harness(options, new PrintStream(err, true, StandardCharsets.UTF_8)).run();
    progress = err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyChosenScenarioIsMeasuredOnBothSqliteStoresAtEveryThreadCount() {
    List<String> measured =
        report.results.stream().map(m -> m.store + "/" + m.threads + "/" + m.scenario).toList();

    List<String> expected =
        STORES.stream()
            .flatMap(
                store ->
                    THREADS.stream()
                        .flatMap(t -> SCENARIOS.stream().map(s -> store + "/" + t + "/" + s)))
            .toList();
    assertThat(measured).containsExactlyElementsOf(expected);
  }

  @Test
  void everyScenarioCompletedOperationsWithoutErrors() {
    assertThat(report.results)
        .allSatisfy(
            m -> {
              String what = m.store + "/" + m.threads + "/" + m.scenario;
              assertThat(m.failures).as("errors of %s", what).isZero();
              assertThat(m.operations).as("operations of %s", what).isPositive();
              assertThat(m.opsPerSec()).as("ops/s of %s", what).isPositive();
              assertThat(m.latencies.getTotalCount())
                  .as("latencies of %s", what)
                  .isEqualTo(m.operations);
              assertThat(m.p99Ms()).as("p99 of %s", what).isGreaterThanOrEqualTo(m.p50Ms());
            });
  }

  @Test
  void everyCountedSliceIsTimedInFull() {
    // Workers run until the slice ends, so the time summed over the counted rounds is at least
    // rounds x slice (the warm-up turn is left out; see the next test).
    assertThat(report.results)
        .allSatisfy(m -> assertThat(m.nanos).isGreaterThanOrEqualTo(SLICE.toNanos() * ROUNDS));
  }

  @Test
  void everyCountedOperationWroteItsRowAndTheWarmUpTurnWasNotCounted() throws Exception {
    for (String store : STORES) {
      long keyedCreates = 0;
      long keyedFloors = 0;
      for (int threads : THREADS) {
        keyedCreates += report.find(store, "keyed-create", threads).orElseThrow().operations;
        keyedFloors += report.find(store, "keyed-floor", threads).orElseThrow().operations;
      }
      // The warm-up turn wrote rows too, so there are strictly more rows than counted operations.
      assertThat(count(store, "SELECT COUNT(*) FROM tl_operations WHERE op_key LIKE 'k-%'"))
          .as("keyed-create records in %s", store)
          .isGreaterThan(keyedCreates);
      assertThat(count(store, "SELECT COUNT(*) FROM bench_floor"))
          .as("keyed-floor rows in %s", store)
          .isGreaterThan(keyedFloors);
    }
  }

  @Test
  void keyedFloorRowsHaveTheLedgerRecordsColumnsAndIndexes() throws Exception {
    // The floor is only a floor while it writes the pages a record writes: if the ledger's
    // migrations change tl_operations, bench_floor must follow.
    String columns =
        "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || IFNULL(dflt_value, '')"
            + " || ' ' || pk FROM pragma_table_info('%s') ORDER BY cid";
    String indexes =
        "SELECT replace(sql, '%s', 'T') FROM sqlite_master WHERE type = 'index'"
            + " AND tbl_name = '%1$s' AND sql IS NOT NULL ORDER BY 1";
    assertThat(rows("sqlite-full", columns.formatted("bench_floor")))
        .isNotEmpty()
        .isEqualTo(rows("sqlite-full", columns.formatted("tl_operations")));
    assertThat(rows("sqlite-full", indexes.formatted("bench_floor")))
        .hasSize(3)
        .isEqualTo(rows("sqlite-full", indexes.formatted("tl_operations")));
  }

  private static List<String> rows(String store, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + ledger(store));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      List<String> rows = new java.util.ArrayList<>();
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
      return rows;
    }
  }

  /** The ledger file the harness left for {@code store} in the --db directory. */
  private static Path ledger(String store) throws Exception {
    List<Path> ledgers;
    try (Stream<Path> files = Files.list(dir)) {
      ledgers =
          files
              .filter(p -> p.getFileName().toString().matches("bench-" + store + "-[0-9a-f]+\\.db"))
              .toList();
    }
    assertThat(ledgers).hasSize(1);
    return ledgers.get(0);
  }

  /** Counts in the ledger file the harness left for {@code store}. */
  private static long count(String store, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + ledger(store));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aReplayOpensNoWriteTransactionOnEitherSqliteStore() {
    assertThat(report.writesPerReplay).containsOnlyKeys(STORES);
    assertThat(report.writesPerReplay.values()).containsOnly(0.0);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    report.print(new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8).lines())
        .contains(
            "sqlite-full: write transactions per replay: 0.000",
            "sqlite-normal: write transactions per replay: 0.000");
  }

  @Test
  void aLoneWriterCommitsOncePerKeyedCreateAndPlainTransactionsAreNotCountedAsLedgerCommits() {
    for (String store : STORES) {
      Measurement keyed = report.find(store, "keyed-create", 1).orElseThrow();
      assertThat(keyed.opsPerCommit()).as(store).isEqualTo(1.0);
      // bare-insert and keyed-floor commit on the pool directly, not through the ledger's store.
      assertThat(report.find(store, "bare-insert", 1).orElseThrow().commits).isZero();
      assertThat(report.find(store, "keyed-floor", 1).orElseThrow().commits).isZero();
      assertThat(report.find(store, "replay", 2).orElseThrow().commits).isZero();
    }
  }

  @Test
  void everyMeasurementCarriesThisProcesssAndTheNodesCpuPerOperation() {
    assertThat(report.results).allSatisfy(m -> assertThat(m.cpuMicrosPerOp()).isPositive());
    // keyed-create runs the engine on the client's thread; the node's own threads still commit
    // (the store's writer on SQLite), so the server's share is at most the process's.
    assertThat(report.results)
        .allSatisfy(
            m -> assertThat(m.serverCpuMicrosPerOp()).isLessThanOrEqualTo(m.cpuMicrosPerOp()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    report.print(new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(out.toString(StandardCharsets.UTF_8).lines())
        .anySatisfy(
            line ->
                assertThat(line).matches("sqlite-full/1/keyed-create +[0-9.]+ +[0-9.]+ +1\\.00"))
        .anySatisfy(
            line -> assertThat(line).matches("sqlite-full/1/bare-insert +[0-9.]+ +[0-9.]+ +-"));
  }

  @Test
  void keyedFloorIsMeasuredAndSetAgainstBareInsertAndKeyedCreate() {
    assertThat(report.find("sqlite-full", "keyed-floor", 2)).isPresent();
    assertThat(report.ratios())
        .extracting(BenchReport.Ratio::name)
        .contains(
            "sqlite-full/1/keyed-floor:bare-insert",
            "sqlite-full/1/keyed-create:keyed-floor",
            "sqlite-normal/2/keyed-floor:bare-insert",
            "sqlite-normal/2/keyed-create:keyed-floor")
        // Scenarios that were not chosen leave no ratio behind.
        .noneMatch(name -> name.contains("two-phase") || name.contains("http"));
    assertThat(report.ratios()).allSatisfy(r -> assertThat(r.value()).isPositive());
  }

  @Test
  void diskLimitIsProbedInTheLedgersDirectory() throws Exception {
    assertThat(report.disk).containsOnlyKeys(STORES);
    assertThat(report.disk.values()).allSatisfy(rate -> assertThat(rate).isPositive());
    try (Stream<Path> files = Files.list(dir)) {
      List<String> names = files.map(p -> p.getFileName().toString()).toList();
      // The ledgers are where --db said; the probe's scratch file is gone.
      assertThat(names)
          .anyMatch(n -> n.matches("bench-sqlite-full-[0-9a-f]{6}\\.db"))
          .anyMatch(n -> n.matches("bench-sqlite-normal-[0-9a-f]{6}\\.db"))
          .noneMatch(n -> n.startsWith("toolledger-disk-probe"));
    }
  }

  @Test
  void progressBarReachesOneHundredPercentAtTheLastSliceAndNotBefore() {
    // Its total is stores x thread counts x scenarios x (rounds + one warm-up turn).
    List<String> frames =
        Pattern.compile("\\] *(\\d+)% (.*?)\\s*(?=\\r|$)")
            .matcher(progress)
            .results()
            .map(match -> match.group(1) + "% " + match.group(2))
            .toList();

    assertThat(frames).isNotEmpty();
    assertThat(frames)
        .filteredOn(frame -> frame.startsWith("100% "))
        .isNotEmpty()
        .containsOnly("100% sqlite-normal t=2 keyed-floor");
    assertThat(frames)
        .allSatisfy(
            frame ->
                assertThat(Integer.parseInt(frame.substring(0, frame.indexOf('%'))))
                    .isBetween(0, 100));
  }
}
