package dev.toolledger.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.Json;
import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

/** The figures of one run: per scenario, the ratios against the targets, the disk's limit. */
public final class BenchReport {
  final List<Measurement> results = new ArrayList<>();
  final Map<String, Double> disk = new LinkedHashMap<>();
  final Map<String, Double> writesPerReplay = new LinkedHashMap<>();

  /** A ratio between two scenarios of one configuration, with the target it must meet. */
  public record Ratio(String name, double value, double target) {
    boolean met() {
      return value >= target;
    }
  }

  Optional<Measurement> find(String store, String scenario, int threads) {
    return results.stream()
        .filter(m -> m.store.equals(store) && m.scenario.equals(scenario) && m.threads == threads)
        .findFirst();
  }

  /** Every ratio the targets name, for every configuration that was measured. */
  public List<Ratio> ratios() {
    List<Ratio> ratios = new ArrayList<>();
    int maxThreads = results.stream().mapToInt(m -> m.threads).max().orElse(1);
    for (String store : stores()) {
      for (int threads : threads()) {
        ratio(
            ratios,
            store,
            threads,
            "keyed-create",
            "bare-insert",
            store.equals("sqlite-normal") ? 0 : 0.9);
        ratio(ratios, store, threads, "keyed-create", "two-phase", 2);
        ratio(ratios, store, threads, "replay", "keyed-create", 5);
        // No targets: how much of keyed-create's cost is the extra row itself (the floor of any
        // design that records in the effect's transaction), and how much the engine adds.
        ratio(ratios, store, threads, "keyed-floor", "bare-insert", 0);
        ratio(ratios, store, threads, "keyed-create", "keyed-floor", 0);
        // The same split with the key's decision in the floor (keyed-floor-decided): what deciding
        // before the tool runs costs any such design, and what the engine's Java adds to it.
        ratio(ratios, store, threads, "keyed-floor-decided", "keyed-floor", 0);
        ratio(ratios, store, threads, "keyed-create", "keyed-floor-decided", 0);
        if (threads == maxThreads) {
          ratio(ratios, store, threads, "http-keyed-create", "keyed-create", 0.7);
        }
        // Issue 13's target for MCP, on the durable stores (SQLite FULL and PostgreSQL).
        ratio(
            ratios,
            store,
            threads,
            "mcp-keyed-create",
            "http-keyed-create",
            store.equals("sqlite-normal") ? 0 : 0.7);
        // Where MCP's cost lies: the server's MCP path over the HTTP API's (both driven by the
        // harness's own sockets), and the SDK's client over raw JSON-RPC on the same transport.
        ratio(ratios, store, threads, "mcp-raw-keyed-create", "http-keyed-create", 0);
        ratio(ratios, store, threads, "mcp-keyed-create", "mcp-raw-keyed-create", 0);
        // The same SDK client over toolledger-client-mcp's lean transport (no target of its own:
        // the target is on the SDK's default), and the SDK's transport against it.
        ratio(ratios, store, threads, "mcp-lean-keyed-create", "http-keyed-create", 0);
        ratio(ratios, store, threads, "mcp-keyed-create", "mcp-lean-keyed-create", 0);
        // A declarative HTTP tool against its upstream called directly (target at the most
        // clients), and against the HTTP API's create, which commits once where it commits twice.
        ratio(
            ratios,
            store,
            threads,
            "decl-http-create",
            "decl-upstream-direct",
            threads == maxThreads ? 0.8 : 0);
        ratio(ratios, store, threads, "decl-http-create", "http-keyed-create", 0);
        // The design's floor for such a tool (two commits around one direct call): how far the
        // two commits alone keep any design from the target, and what ToolLedger adds to them.
        ratio(ratios, store, threads, "decl-floor", "decl-upstream-direct", 0);
        ratio(ratios, store, threads, "decl-http-create", "decl-floor", 0);
        // The peer: ahead means a ratio of at least 1.
        ratio(ratios, store, threads, "keyed-create", "peer-dbos-create", 1);
        ratio(ratios, store, threads, "replay", "peer-dbos-replay", 1);
      }
    }
    return ratios;
  }

  private void ratio(
      List<Ratio> ratios, String store, int threads, String a, String b, double target) {
    Optional<Measurement> ma = find(store, a, threads);
    Optional<Measurement> mb = find(store, b, threads);
    if (ma.isPresent() && mb.isPresent() && mb.get().opsPerSec() > 0) {
      ratios.add(
          new Ratio(
              store + "/" + threads + "/" + a + ":" + b,
              ma.get().opsPerSec() / mb.get().opsPerSec(),
              target));
    }
  }

  List<String> stores() {
    return results.stream().map(m -> m.store).distinct().toList();
  }

  List<Integer> threads() {
    return results.stream().map(m -> m.threads).distinct().sorted().toList();
  }

  /** The table, the ratios and the disk's limit, for people. */
  public void print(PrintStream out) {
    out.printf(
        "%-14s %7s  %-20s %11s %9s %9s %8s%n",
        "store", "threads", "scenario", "ops/s", "p50 ms", "p99 ms", "errors");
    for (Measurement m : results) {
      out.printf(
          "%-14s %7d  %-20s %11.1f %9.3f %9.3f %8d%n",
          m.store, m.threads, m.scenario, m.opsPerSec(), m.p50Ms(), m.p99Ms(), m.failures);
    }
    out.println();
    out.printf("%-58s %8s %8s%n", "ratio (store/threads/a:b)", "value", "target");
    for (Ratio ratio : ratios()) {
      out.printf(
          "%-58s %8.2f %8s %s%n",
          ratio.name(),
          ratio.value(),
          ratio.target() > 0 ? ">= " + ratio.target() : "-",
          ratio.target() > 0 ? (ratio.met() ? "met" : "NOT MET") : "");
    }
    // The declarative tool's latency on top of its upstream's (target: p99 added <= 2 ms).
    for (Measurement tool : results) {
      if (tool.scenario.equals("decl-http-create")) {
        find(tool.store, "decl-upstream-direct", tool.threads)
            .ifPresent(
                direct ->
                    out.printf(
                        "%-58s %8.3f %8s%n",
                        tool.store + "/" + tool.threads + "/decl p99 added (ms)",
                        tool.p99Ms() - direct.p99Ms(),
                        "<= 2"));
      }
    }
    out.println();
    // What each operation cost: this process's CPU (clients and server; a PostgreSQL server's
    // own CPU is not included) and, for the engine's scenarios, how many operations shared each
    // of the ledger's commits (group commit on SQLite).
    // "server" is the node's own threads alone (see Measurement.serverCpuNanos).
    out.printf(
        "%-46s %12s %12s %12s%n",
        "cost (store/threads/scenario)", "CPU us/op", "server us/op", "ops/commit");
    for (Measurement m : results) {
      if (m.operations > 0) {
        out.printf(
            "%-46s %12.1f %12.1f %12s%n",
            m.store + "/" + m.threads + "/" + m.scenario,
            m.cpuMicrosPerOp(),
            m.serverCpuMicrosPerOp(),
            m.commits > 0 ? String.format("%.2f", m.opsPerCommit()) : "-");
      }
    }
    out.println();
    for (Map.Entry<String, Double> entry : writesPerReplay.entrySet()) {
      out.printf("%s: write transactions per replay: %.3f%n", entry.getKey(), entry.getValue());
    }
    for (Map.Entry<String, Double> entry : disk.entrySet()) {
      String store = entry.getKey();
      double limit = entry.getValue();
      out.printf("%s: the disk takes %.0f synchronous writes/s%n", store, limit);
      for (String scenario : List.of("bare-insert", "keyed-create")) {
        find(store, scenario, 1)
            .ifPresent(
                m ->
                    out.printf(
                        "  %s at 1 thread: %.0f durable commits/s = %.2f of the disk's limit%n",
                        scenario, m.opsPerSec(), m.opsPerSec() / limit));
      }
    }
  }

  /** {@code {"results": [...], "ratios": {...}, "disk": {...}, "writesPerReplay": {...}}}. */
  public void writeJson(Path file) throws IOException {
    ObjectNode root = Json.object();
    ArrayNode list = root.putArray("results");
    for (Measurement m : results) {
      list.addObject()
          .put("store", m.store)
          .put("scenario", m.scenario)
          .put("threads", m.threads)
          .put("opsPerSec", round(m.opsPerSec()))
          .put("p50Ms", round(m.p50Ms()))
          .put("p99Ms", round(m.p99Ms()))
          .put("errors", m.failures)
          .put("cpuMicrosPerOp", round(m.cpuMicrosPerOp()))
          .put("serverCpuMicrosPerOp", round(m.serverCpuMicrosPerOp()));
      if (m.commits > 0) {
        ((ObjectNode) list.get(list.size() - 1)).put("opsPerCommit", round(m.opsPerCommit()));
      }
    }
    ObjectNode ratios = root.putObject("ratios");
    for (Ratio ratio : ratios()) {
      ratios.put(ratio.name(), round(ratio.value()));
    }
    ObjectNode diskJson = root.putObject("disk");
    disk.forEach((store, rate) -> diskJson.put(store + "/syncWritesPerSec", round(rate)));
    ObjectNode replayWrites = root.putObject("writesPerReplay");
    writesPerReplay.forEach(replayWrites::put);
    Files.writeString(
        file,
        Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n",
        StandardCharsets.UTF_8);
  }

  /** A bar chart of ops/s: one group per scenario, one bar per store and thread count. */
  public void writeChart(Path file) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (Measurement m : results) {
      data.addValue(
          m.opsPerSec(),
          m.store + ", " + m.threads + (m.threads == 1 ? " thread" : " threads"),
          m.scenario);
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            "ToolLedger: operations per second by scenario",
            "scenario",
            "operations per second, log scale (higher is better)",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    chart.setBackgroundPaint(Color.WHITE);
    chart.getCategoryPlot().setBackgroundPaint(new Color(248, 248, 248));
    chart.getCategoryPlot().getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    // Replays run 10 to 100 times faster than writes: a linear axis would flatten everything else.
    LogAxis axis = new LogAxis("operations per second, log scale (higher is better)");
    axis.setBase(10);
    axis.setSmallestValue(10);
    axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    chart.getCategoryPlot().setRangeAxis(axis);
    chart.getCategoryPlot().getRenderer().setDefaultItemLabelsVisible(false);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 1200, 700);
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
