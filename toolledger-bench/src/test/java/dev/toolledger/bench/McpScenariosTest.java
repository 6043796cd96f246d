package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.jdbc.Synchronous;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP scenarios beside the HTTP one, for real: the node's HTTP server on a SQLite file, the
 * official SDK's client for {@code mcp-keyed-create} (on the SDK's transport) and {@code
 * mcp-lean-keyed-create} (on toolledger-client-mcp's lean transport), and raw JSON-RPC on the
 * harness's sockets for {@code mcp-raw-keyed-create}. It checks that each counts what it says (one
 * new operation per call, never a replay); how fast is not its business.
 */
class McpScenariosTest {
  private static final List<String> SCENARIOS =
      List.of(
          "http-keyed-create", "mcp-keyed-create", "mcp-lean-keyed-create", "mcp-raw-keyed-create");
  private static final List<Integer> THREADS = List.of(1, 2);

  @TempDir static Path dir;
  @TempDir Path own;

  private static BenchReport report;

  @BeforeAll
  static void runTheHarness() throws Exception {
    BenchOptions options =
        new BenchOptions(
            dir,
            Optional.empty(),
            Duration.ofMillis(100),
            2,
            THREADS,
            Optional.empty(),
            Optional.empty(),
            false,
            SCENARIOS);
    report = new Harness(options, new PrintStream(OutputStream.nullOutputStream())).run();
  }

  @Test
  void theRawMcpScenarioRunsInTheSameInterleavedRunWithoutErrors() {
    List<String> measured =
        report.results.stream()
            .filter(m -> m.store.equals("sqlite-full"))
            .map(m -> m.threads + "/" + m.scenario)
            .toList();
    assertThat(measured)
        .containsExactly(
            "1/http-keyed-create",
            "1/mcp-keyed-create",
            "1/mcp-lean-keyed-create",
            "1/mcp-raw-keyed-create",
            "2/http-keyed-create",
            "2/mcp-keyed-create",
            "2/mcp-lean-keyed-create",
            "2/mcp-raw-keyed-create");
    assertThat(report.results)
        .allSatisfy(
            m -> {
              String what = m.store + "/" + m.threads + "/" + m.scenario;
              assertThat(m.failures).as("errors of %s", what).isZero();
              assertThat(m.operations).as("operations of %s", what).isPositive();
              assertThat(m.cpuMicrosPerOp()).as("CPU of %s", what).isPositive();
            });
    assertThat(report.ratios())
        .extracting(BenchReport.Ratio::name)
        .contains(
            "sqlite-full/1/mcp-raw-keyed-create:http-keyed-create",
            "sqlite-full/2/mcp-keyed-create:mcp-raw-keyed-create",
            "sqlite-full/1/mcp-lean-keyed-create:http-keyed-create",
            "sqlite-full/2/mcp-keyed-create:mcp-lean-keyed-create");
  }

  @Test
  void callsThroughTheHttpApiCarryTheServerThreadsCpu() {
    assertThat(report.results)
        .filteredOn(m -> m.scenario.equals("http-keyed-create"))
        .hasSize(4)
        .allSatisfy(
            m -> {
              assertThat(m.serverCpuMicrosPerOp()).isPositive();
              // The server's threads are part of this process; the clients' CPU is the rest.
              assertThat(m.serverCpuNanos).isLessThan(m.cpuNanos);
            });
  }

  @Test
  void everyKeyedCallOfTheRunExecutedOnceAndWroteOneNote() throws Exception {
    for (String store : List.of("sqlite-full", "sqlite-normal")) {
      long counted =
          report.results.stream()
              .filter(m -> m.store.equals(store))
              .mapToLong(m -> m.operations)
              .sum();
      Path ledger = ledger(dir, store);
      long records = count(ledger, "SELECT COUNT(*) FROM tl_operations WHERE op_key LIKE 'k-%'");
      // The warm-up turns' calls are recorded too, and not counted: strictly more records.
      assertThat(records).as(store).isGreaterThan(counted);
      assertThat(
              count(
                  ledger,
                  "SELECT COUNT(*) FROM tl_operations WHERE op_key LIKE 'k-%'"
                      + " AND state = 'COMPLETED' AND response_status = 201"))
          .as(store)
          .isEqualTo(records);
      // One note per record: no call executed twice. The replay keys' notes are the rest.
      assertThat(count(ledger, "SELECT COUNT(*) FROM notes"))
          .as(store)
          .isEqualTo(records + Target.REPLAY_KEYS);
    }
  }

  @Test
  void eachRawMcpCallCreatesExactlyOneOperation() throws Exception {
    assertEachCallCreatesExactlyOneOperation(McpScenarios::rawKeyedCreate);
  }

  @Test
  void eachSdkMcpCallCreatesExactlyOneOperation() throws Exception {
    assertEachCallCreatesExactlyOneOperation(
        (target, keys) -> McpScenarios.sdkKeyedCreate(target, keys, false));
  }

  @Test
  void eachSdkMcpCallOverTheLeanTransportCreatesExactlyOneOperation() throws Exception {
    assertEachCallCreatesExactlyOneOperation(
        (target, keys) -> McpScenarios.sdkKeyedCreate(target, keys, true));
  }

  @Test
  void aRawMcpCallThatIsAnsweredWithAReplayFails() throws Exception {
    AtomicLong keys = new AtomicLong();
    try (Target target = Target.sqlite("sqlite-full", own.resolve("replay.db"), Synchronous.FULL);
        DefinedScenario scenario = McpScenarios.rawKeyedCreate(target, keys)) {
      scenario.run(0, 0);
      keys.set(0); // the next call sends the same key again: the server replays its outcome
      assertThatThrownBy(() -> scenario.run(0, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("replayed");
    }
  }

  private <S extends Scenario & AutoCloseable> void assertEachCallCreatesExactlyOneOperation(
      BiFunction<Target, AtomicLong, S> scenarioOf) throws Exception {
    int threads = 2;
    int callsPerThread = 20;
    Path file = own.resolve("exact.db");
    try (Target target = Target.sqlite("sqlite-full", file, Synchronous.FULL);
        S scenario = scenarioOf.apply(target, target.keys)) {
      List<Thread> workers = new ArrayList<>();
      List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < threads; t++) {
        int thread = t;
        Thread worker =
            new Thread(
                () -> {
                  for (int i = 0; i < callsPerThread; i++) {
                    try {
                      scenario.run(thread, i);
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }
                });
        workers.add(worker);
        worker.start();
      }
      for (Thread worker : workers) {
        worker.join();
      }
      assertThat(errors).isEmpty();
    }
    long calls = (long) threads * callsPerThread;
    assertThat(count(file, "SELECT COUNT(*) FROM tl_operations WHERE op_key LIKE 'k-%'"))
        .isEqualTo(calls);
    assertThat(count(file, "SELECT COUNT(*) FROM notes")).isEqualTo(calls + Target.REPLAY_KEYS);
  }

  /** The ledger file the harness left for {@code store} in {@code directory}. */
  private static Path ledger(Path directory, String store) throws Exception {
    try (Stream<Path> files = Files.list(directory)) {
      List<Path> ledgers =
          files
              .filter(p -> p.getFileName().toString().matches("bench-" + store + "-[0-9a-f]+\\.db"))
              .toList();
      assertThat(ledgers).hasSize(1);
      return ledgers.get(0);
    }
  }

  private static long count(Path file, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
