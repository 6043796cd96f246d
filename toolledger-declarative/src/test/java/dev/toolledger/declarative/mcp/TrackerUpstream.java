package dev.toolledger.declarative.mcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The example tracker (examples/tools/tracker/Tracker.java), a real MCP server on the official SDK,
 * compiled once per test JVM and run as a child process: over stdio by ToolLedger itself, or over
 * Streamable HTTP by the test. Its data directory is its own count of effects.
 */
final class TrackerUpstream implements AutoCloseable {
  static final Path SOURCE = Path.of("../examples/tools/tracker/Tracker.java");
  static final String TOKEN = "trk-s3cr3t-7d1f";
  private static Path classes;

  final Path data;
  private Process http;
  private int port;

  TrackerUpstream(Path data) {
    this.data = data;
  }

  /** The classpath that runs the tracker: its compiled class and the test classpath. */
  static synchronized String classpath() {
    if (classes == null) {
      try {
        Path out = Files.createDirectories(Path.of("target", "tracker-classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int status =
            javac.run(
                null,
                null,
                System.err,
                "-proc:none",
                "-nowarn",
                "-cp",
                System.getProperty("java.class.path"),
                "-d",
                out.toString(),
                SOURCE.toString());
        if (status != 0) {
          throw new IllegalStateException("the example tracker does not compile");
        }
        classes = out.toAbsolutePath();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return classes + java.io.File.pathSeparator + System.getProperty("java.class.path");
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The environment a tools file is loaded with to run the tracker over stdio. */
  Map<String, String> stdioEnvironment() {
    return Map.of(
        "JAVA", java(),
        "TRACKER_CLASSPATH", classpath(),
        "TRACKER_MAIN", "Tracker",
        "TRACKER_DATA", data.toString(),
        "TRACKER_TOKEN", TOKEN);
  }

  /** Starts (or restarts, on the same port) the tracker over Streamable HTTP. */
  void startHttp() throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                java(),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath(),
                "Tracker",
                "http",
                Integer.toString(port),
                data.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("TRACKER_TOKEN", TOKEN);
    http = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(http.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.startsWith("listening ")) {
      throw new IllegalStateException("the tracker did not start: " + line);
    }
    port = Integer.parseInt(line.substring("listening ".length()));
  }

  String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  /** Kills the HTTP tracker at once (SIGKILL). */
  void killHttp() throws InterruptedException {
    http.destroyForcibly();
    http.waitFor(10, TimeUnit.SECONDS);
  }

  /** The tracker program that ToolLedger started over stdio for this data directory, if any. */
  Optional<ProcessHandle> stdioProcess() {
    try {
      Path pid = data.resolve("stdio.pid");
      return Files.exists(pid)
          ? ProcessHandle.of(Long.parseLong(Files.readString(pid).strip()))
              .filter(ProcessHandle::isAlive)
          : Optional.empty();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Waits until the stdio tracker is running, then kills it (SIGKILL). */
  void killStdio() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    Optional<ProcessHandle> process;
    while ((process = stdioProcess()).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no tracker process");
      }
      Thread.sleep(20);
    }
    process.get().destroyForcibly();
    process.get().onExit().orTimeout(10, TimeUnit.SECONDS).join();
  }

  /** Makes the next create_ticket misbehave once (see Tracker's class comment). */
  void fault(String fault) throws IOException {
    Files.writeString(data.resolve("fault"), fault);
  }

  /** Whether the fault was taken by a call. */
  boolean faultTaken() {
    return !Files.exists(data.resolve("fault"));
  }

  /** The tickets the tracker created: its own record of effects. */
  List<String> tickets() throws IOException {
    Path file = data.resolve("tickets.jsonl");
    return Files.exists(file)
        ? Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList()
        : new ArrayList<>();
  }

  int ticketCount() throws IOException {
    return tickets().size();
  }

  @Override
  public void close() throws InterruptedException {
    if (http != null) {
      killHttp();
    }
  }
}
