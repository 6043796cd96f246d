package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.bench.BenchReport.Ratio;
import dev.toolledger.protocol.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's arithmetic and its two outputs, on measurements made up for the purpose. */
class BenchReportTest {
  @TempDir Path dir;

  private final BenchReport report = new BenchReport();

  /** A measurement of exactly {@code opsPerSec}: that many operations in one second. */
  private Measurement measure(String store, String scenario, int threads, long opsPerSec) {
    Measurement m = new Measurement(store, scenario, threads);
    m.operations = opsPerSec;
    m.nanos = 1_000_000_000L;
    report.results.add(m);
    return m;
  }

  private Map<String, Ratio> ratios() {
    return report.ratios().stream().collect(Collectors.toMap(Ratio::name, Function.identity()));
  }

  private String printed() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    report.print(new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The printed ratio line of {@code name}, split on blanks: name, value, then target and mark. */
  private List<String> ratioLine(String name) {
    return printed()
        .lines()
        .filter(line -> line.startsWith(name + " "))
        .findFirst()
        .map(line -> List.of(line.trim().split("\\s+")))
        .orElseThrow(() -> new AssertionError("no line for " + name + " in\n" + printed()));
  }

  @Test
  void ratioDividesOpsPerSecondOfTheSameStoreAndThreadCount() {
    measure("sqlite-full", "bare-insert", 1, 1000);
    measure("sqlite-full", "keyed-create", 1, 950);
    measure("sqlite-full", "replay", 1, 19_000);
    measure("sqlite-full", "two-phase", 1, 400);
    measure("sqlite-full", "bare-insert", 4, 2000);
    measure("sqlite-full", "keyed-create", 4, 1000);
    // Another store's figures must not leak into sqlite-full's ratios.
    measure("sqlite-normal", "bare-insert", 1, 10_000);
    measure("sqlite-normal", "keyed-create", 1, 2_500);

    Map<String, Ratio> ratios = ratios();

    assertThat(ratios)
        .containsOnlyKeys(
            "sqlite-full/1/keyed-create:bare-insert",
            "sqlite-full/1/keyed-create:two-phase",
            "sqlite-full/1/replay:keyed-create",
            "sqlite-full/4/keyed-create:bare-insert",
            "sqlite-normal/1/keyed-create:bare-insert");
    assertThat(ratios.get("sqlite-full/1/keyed-create:bare-insert").value())
        .isCloseTo(0.95, within(1e-9));
    assertThat(ratios.get("sqlite-full/1/keyed-create:two-phase").value())
        .isCloseTo(2.375, within(1e-9));
    assertThat(ratios.get("sqlite-full/1/replay:keyed-create").value())
        .isCloseTo(20.0, within(1e-9));
    assertThat(ratios.get("sqlite-full/4/keyed-create:bare-insert").value())
        .isCloseTo(0.5, within(1e-9));
    assertThat(ratios.get("sqlite-normal/1/keyed-create:bare-insert").value())
        .isCloseTo(0.25, within(1e-9));
  }

  @Test
  void ratiosCarryTheTargetsTheReadmeNames() {
    for (String store : List.of("sqlite-full", "sqlite-normal")) {
      for (String scenario : Scenarios.NAMES) {
        measure(store, scenario, 1, 100);
      }
    }

    Map<String, Double> targets = new java.util.TreeMap<>();
    for (Ratio ratio : report.ratios()) {
      targets.put(ratio.name(), ratio.target());
    }

    assertThat(targets)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("sqlite-full/1/keyed-create:bare-insert", 0.9),
                Map.entry("sqlite-full/1/keyed-create:two-phase", 2.0),
                Map.entry("sqlite-full/1/replay:keyed-create", 5.0),
                Map.entry("sqlite-full/1/keyed-floor:bare-insert", 0.0),
                Map.entry("sqlite-full/1/keyed-create:keyed-floor", 0.0),
                Map.entry("sqlite-full/1/keyed-floor-decided:keyed-floor", 0.0),
                Map.entry("sqlite-full/1/keyed-create:keyed-floor-decided", 0.0),
                Map.entry("sqlite-full/1/http-keyed-create:keyed-create", 0.7),
                // Issue 13's MCP target on the durable stores.
                Map.entry("sqlite-full/1/mcp-keyed-create:http-keyed-create", 0.7),
                Map.entry("sqlite-full/1/mcp-raw-keyed-create:http-keyed-create", 0.0),
                Map.entry("sqlite-full/1/mcp-keyed-create:mcp-raw-keyed-create", 0.0),
                Map.entry("sqlite-full/1/mcp-lean-keyed-create:http-keyed-create", 0.0),
                Map.entry("sqlite-full/1/mcp-keyed-create:mcp-lean-keyed-create", 0.0),
                Map.entry("sqlite-full/1/decl-http-create:decl-upstream-direct", 0.8),
                Map.entry("sqlite-full/1/decl-http-create:http-keyed-create", 0.0),
                Map.entry("sqlite-full/1/decl-floor:decl-upstream-direct", 0.0),
                Map.entry("sqlite-full/1/decl-http-create:decl-floor", 0.0),
                Map.entry("sqlite-full/1/keyed-create:peer-dbos-create", 1.0),
                Map.entry("sqlite-full/1/replay:peer-dbos-replay", 1.0),
                // NORMAL may lose the last commits on power loss, so it has no target against
                // the bare insert.
                Map.entry("sqlite-normal/1/keyed-create:bare-insert", 0.0),
                Map.entry("sqlite-normal/1/keyed-create:two-phase", 2.0),
                Map.entry("sqlite-normal/1/replay:keyed-create", 5.0),
                Map.entry("sqlite-normal/1/keyed-floor:bare-insert", 0.0),
                Map.entry("sqlite-normal/1/keyed-create:keyed-floor", 0.0),
                Map.entry("sqlite-normal/1/keyed-floor-decided:keyed-floor", 0.0),
                Map.entry("sqlite-normal/1/keyed-create:keyed-floor-decided", 0.0),
                Map.entry("sqlite-normal/1/http-keyed-create:keyed-create", 0.7),
                Map.entry("sqlite-normal/1/mcp-keyed-create:http-keyed-create", 0.0),
                Map.entry("sqlite-normal/1/mcp-raw-keyed-create:http-keyed-create", 0.0),
                Map.entry("sqlite-normal/1/mcp-keyed-create:mcp-raw-keyed-create", 0.0),
                Map.entry("sqlite-normal/1/mcp-lean-keyed-create:http-keyed-create", 0.0),
                Map.entry("sqlite-normal/1/mcp-keyed-create:mcp-lean-keyed-create", 0.0),
                Map.entry("sqlite-normal/1/decl-http-create:decl-upstream-direct", 0.8),
                Map.entry("sqlite-normal/1/decl-http-create:http-keyed-create", 0.0),
                Map.entry("sqlite-normal/1/decl-floor:decl-upstream-direct", 0.0),
                Map.entry("sqlite-normal/1/decl-http-create:decl-floor", 0.0),
                Map.entry("sqlite-normal/1/keyed-create:peer-dbos-create", 1.0),
                Map.entry("sqlite-normal/1/replay:peer-dbos-replay", 1.0)));
  }

  @Test
  void ratioIsLeftOutWhenTheDivisorMeasuredNothing() {
    measure("sqlite-full", "keyed-create", 1, 100);
    measure("sqlite-full", "bare-insert", 1, 0);
    measure("sqlite-full", "replay", 1, 0);

    assertThat(ratios())
        .containsOnlyKeys("sqlite-full/1/replay:keyed-create")
        .extractingByKey("sqlite-full/1/replay:keyed-create")
        .extracting(Ratio::value)
        .isEqualTo(0.0);
  }

  @Test
  void httpRatioIsReportedOnlyAtTheLargestThreadCount() {
    for (int threads : List.of(1, 4, 16)) {
      measure("sqlite-full", "keyed-create", threads, 1000);
      measure("sqlite-full", "http-keyed-create", threads, 800);
      measure("sqlite-full", "mcp-keyed-create", threads, 400);
    }

    List<String> http =
        report.ratios().stream()
            .map(Ratio::name)
            .filter(name -> name.endsWith(":keyed-create"))
            .toList();
    List<String> mcp =
        report.ratios().stream()
            .map(Ratio::name)
            .filter(name -> name.startsWith("sqlite-full/") && name.contains("mcp-"))
            .toList();

    assertThat(http).containsExactly("sqlite-full/16/http-keyed-create:keyed-create");
    assertThat(ratios().get("sqlite-full/16/http-keyed-create:keyed-create").value())
        .isCloseTo(0.8, within(1e-9));
    // MCP against HTTP has its target at every thread count (not only at the most).
    assertThat(mcp)
        .containsExactly(
            "sqlite-full/1/mcp-keyed-create:http-keyed-create",
            "sqlite-full/4/mcp-keyed-create:http-keyed-create",
            "sqlite-full/16/mcp-keyed-create:http-keyed-create");
    assertThat(ratioLine("sqlite-full/1/mcp-keyed-create:http-keyed-create"))
        .containsExactly(
            "sqlite-full/1/mcp-keyed-create:http-keyed-create", "0.50", ">=", "0.7", "NOT", "MET");
  }

  @Test
  void theDeclarativeToolShowsItsRatioAndTheP99ItAddsToItsUpstream() {
    measure("sqlite-full", "decl-http-create", 16, 400).latencies.recordValue(3_000_000);
    measure("sqlite-full", "decl-upstream-direct", 16, 1000).latencies.recordValue(1_000_000);

    assertThat(ratioLine("sqlite-full/16/decl-http-create:decl-upstream-direct"))
        .containsExactly(
            "sqlite-full/16/decl-http-create:decl-upstream-direct",
            "0.40",
            ">=",
            "0.8",
            "NOT",
            "MET");
    List<String> added = ratioLine("sqlite-full/16/decl p99 added (ms)");
    assertThat(added.subList(added.size() - 2, added.size())).containsExactly("<=", "2");
    assertThat(Double.parseDouble(added.get(added.size() - 3))).isCloseTo(2.0, within(0.01));
  }

  @Test
  void thePeerIsComparedOnCreateAndOnReplay() {
    measure("postgresql", "keyed-create", 1, 300);
    measure("postgresql", "peer-dbos-create", 1, 200);
    measure("postgresql", "replay", 1, 1000);
    measure("postgresql", "peer-dbos-replay", 1, 2000);

    assertThat(ratioLine("postgresql/1/keyed-create:peer-dbos-create"))
        .containsExactly("postgresql/1/keyed-create:peer-dbos-create", "1.50", ">=", "1.0", "met");
    assertThat(ratioLine("postgresql/1/replay:peer-dbos-replay"))
        .containsExactly("postgresql/1/replay:peer-dbos-replay", "0.50", ">=", "1.0", "NOT", "MET");
  }

  @Test
  void mcpCostIsSplitBetweenTheSdkClientAndTheServersMcpPath() {
    for (int threads : List.of(1, 16)) {
      measure("sqlite-full", "http-keyed-create", threads, 1000);
      measure("sqlite-full", "mcp-raw-keyed-create", threads, 500);
      measure("sqlite-full", "mcp-keyed-create", threads, 100);
    }

    Map<String, Ratio> ratios = ratios();

    // Raw JSON-RPC over /mcp against the HTTP API: what the server's MCP path costs.
    assertThat(ratios.get("sqlite-full/16/mcp-raw-keyed-create:http-keyed-create").value())
        .isCloseTo(0.5, within(1e-9));
    // The SDK's client against raw JSON-RPC on the same transport: what the client costs.
    assertThat(ratios.get("sqlite-full/1/mcp-keyed-create:mcp-raw-keyed-create").value())
        .isCloseTo(0.2, within(1e-9));
    assertThat(ratioLine("sqlite-full/16/mcp-keyed-create:mcp-raw-keyed-create"))
        .containsExactly("sqlite-full/16/mcp-keyed-create:mcp-raw-keyed-create", "0.20", "-");
  }

  @Test
  void printedRatiosAreMarkedMetOrNotMetAgainstTheirTargets() {
    // keyed-create:bare-insert exactly at its 0.9 target is met; replay:keyed-create 4.99 is not.
    measure("sqlite-full", "bare-insert", 1, 1000);
    measure("sqlite-full", "keyed-create", 1, 900);
    measure("sqlite-full", "replay", 1, 4491);
    measure("sqlite-full", "two-phase", 1, 500);
    measure("sqlite-full", "keyed-floor", 1, 950);
    measure("sqlite-normal", "bare-insert", 1, 1000);
    measure("sqlite-normal", "keyed-create", 1, 100);

    assertThat(ratioLine("sqlite-full/1/keyed-create:bare-insert"))
        .containsExactly("sqlite-full/1/keyed-create:bare-insert", "0.90", ">=", "0.9", "met");
    assertThat(ratioLine("sqlite-full/1/replay:keyed-create"))
        .containsExactly("sqlite-full/1/replay:keyed-create", "4.99", ">=", "5.0", "NOT", "MET");
    assertThat(ratioLine("sqlite-full/1/keyed-create:two-phase"))
        .containsExactly("sqlite-full/1/keyed-create:two-phase", "1.80", ">=", "2.0", "NOT", "MET");
    // Ratios without a target are shown, never judged.
    assertThat(ratioLine("sqlite-full/1/keyed-floor:bare-insert"))
        .containsExactly("sqlite-full/1/keyed-floor:bare-insert", "0.95", "-");
    assertThat(ratioLine("sqlite-normal/1/keyed-create:bare-insert"))
        .containsExactly("sqlite-normal/1/keyed-create:bare-insert", "0.10", "-");
  }

  @Test
  void printedReportHasTheTableWritesPerReplayAndTheDisksLimit() {
    Measurement m = measure("sqlite-full", "keyed-create", 1, 250);
    m.failures = 3;
    m.latencies.recordValue(2_000_000);
    measure("sqlite-full", "bare-insert", 1, 500);
    report.writesPerReplay.put("sqlite-full", 0.0);
    report.disk.put("sqlite-full", 1000.0);

    String printed = printed();

    String row =
        printed
            .lines()
            .filter(line -> line.contains("keyed-create"))
            .findFirst()
            .orElseThrow()
            .trim();
    String[] cells = row.split("\\s+");
    assertThat(cells).hasSize(7);
    assertThat(List.of(cells[0], cells[1], cells[2], cells[3], cells[6]))
        .containsExactly("sqlite-full", "1", "keyed-create", "250.0", "3");
    // p50 and p99 of the one 2 ms latency, to HdrHistogram's three significant digits.
    assertThat(Double.parseDouble(cells[4])).isCloseTo(2.0, within(0.002));
    assertThat(Double.parseDouble(cells[5])).isCloseTo(2.0, within(0.002));
    assertThat(printed.lines())
        .contains(
            "sqlite-full: write transactions per replay: 0.000",
            "sqlite-full: the disk takes 1000 synchronous writes/s",
            "  bare-insert at 1 thread: 500 durable commits/s = 0.50 of the disk's limit",
            "  keyed-create at 1 thread: 250 durable commits/s = 0.25 of the disk's limit");
  }

  @Test
  void jsonHoldsEveryResultTheRatiosTheDiskAndWritesPerReplay() throws Exception {
    Measurement keyed = measure("sqlite-full", "keyed-create", 2, 0);
    keyed.operations = 1000;
    keyed.nanos = 3_000_000_000L; // 333.333... ops/s
    keyed.failures = 1;
    for (int i = 0; i < 100; i++) {
      keyed.latencies.recordValue(i < 98 ? 1_500_000 : 40_000_000);
    }
    measure("sqlite-full", "bare-insert", 2, 1000);
    report.disk.put("sqlite-full", 1234.5678);
    report.writesPerReplay.put("sqlite-full", 0.0);
    Path file = dir.resolve("bench.json");

    report.writeJson(file);
    JsonNode root = Json.parse(Files.readString(file));

    List<String> fields = new ArrayList<>();
    root.fieldNames().forEachRemaining(fields::add);
    // Fields may be added for new figures; these are the documented ones.
    assertThat(fields).contains("results", "ratios", "disk", "writesPerReplay");

    JsonNode results = root.get("results");
    assertThat(results.isArray()).isTrue();
    assertThat(results).hasSize(2);
    JsonNode first = results.get(0);
    List<String> resultFields = new ArrayList<>();
    first.fieldNames().forEachRemaining(resultFields::add);
    assertThat(resultFields)
        .contains("store", "scenario", "threads", "opsPerSec", "p50Ms", "p99Ms", "errors");
    assertThat(first.get("store").asText()).isEqualTo("sqlite-full");
    assertThat(first.get("scenario").asText()).isEqualTo("keyed-create");
    assertThat(first.get("threads").isInt()).isTrue();
    assertThat(first.get("threads").asInt()).isEqualTo(2);
    // Rounded to three decimals; HdrHistogram keeps three significant digits of each latency.
    assertThat(first.get("opsPerSec").asDouble()).isEqualTo(333.333);
    assertThat(first.get("p50Ms").asDouble()).isCloseTo(1.5, within(0.002));
    assertThat(first.get("p99Ms").asDouble()).isCloseTo(40.0, within(0.05));
    assertThat(first.get("errors").asLong()).isEqualTo(1);
    assertThat(results.get(1).get("scenario").asText()).isEqualTo("bare-insert");

    JsonNode ratios = root.get("ratios");
    assertThat(ratios.isObject()).isTrue();
    assertThat(ratios.size()).isEqualTo(1);
    assertThat(ratios.get("sqlite-full/2/keyed-create:bare-insert").asDouble()).isEqualTo(0.333);

    assertThat(root.get("disk").get("sqlite-full/syncWritesPerSec").asDouble()).isEqualTo(1234.568);
    assertThat(root.get("writesPerReplay").get("sqlite-full").asDouble()).isEqualTo(0.0);
  }

  @Test
  void chartIsWrittenAsPng() throws Exception {
    measure("sqlite-full", "bare-insert", 1, 1000);
    measure("sqlite-full", "replay", 1, 50_000);
    measure("sqlite-normal", "bare-insert", 16, 3000);
    Path file = dir.resolve("bench.png");

    report.writeChart(file);

    byte[] png = Files.readAllBytes(file);
    assertThat(png).startsWith(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
    assertThat(png.length).isGreaterThan(1000);
  }
}
