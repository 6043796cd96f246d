package dev.toolledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.guard.Guard;
import dev.toolledger.guard.GuardConfig;
import dev.toolledger.guard.GuardConventions;
import dev.toolledger.protocol.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code create-note} as a host without keys calls it through {@code toolledger guard}: the host
 * writes newline-delimited JSON-RPC (the MCP stdio framing) to a guard running in this process and
 * reads its answer; the guard journals a new action (one SQLite write, {@code synchronous=FULL}),
 * sends it over the same SDK client and lean transport as {@code mcp-lean-keyed-create}, and
 * journals the outcome (a second write). The same arguments on every call: after each answer an
 * identical call is a new action. Set against {@code mcp-lean-keyed-create}, it is what the guard
 * adds per call. One guard, journal and loopback socket pair (standing in for the stdio pipes) per
 * client thread; each guard opens its session on the thread's first call, in the warm-up round.
 *
 * <p>As {@code guard-keyed-create-shm} the journals live on {@code /dev/shm} (tmpfs, where an fsync
 * returns at once; the temporary directory where there is none): the guard's cost without its
 * journal's two durable writes, so the difference between the two is what durability costs on this
 * disk.
 */
final class GuardKeyedCreate implements Scenario, AutoCloseable {
  private final Target target;
  private final String token;
  private Path journals;
  private final boolean shm;
  private final Map<Integer, Host> hosts = new ConcurrentHashMap<>();

  GuardKeyedCreate(Target target, boolean shm) {
    this.target = target;
    this.shm = shm;
    this.token = target.app.tokens().issue(Target.TENANT, "bench-guard").token();
  }

  /** The journals' directory, made on first use (constructing the scenario leaves nothing). */
  private synchronized Path journals() throws IOException {
    if (journals == null) {
      Path tmpfs = Path.of("/dev/shm");
      journals =
          shm && Files.isDirectory(tmpfs)
              ? Files.createTempDirectory(tmpfs, "toolledger-bench-guard")
              : Files.createTempDirectory("toolledger-bench-guard");
    }
    return journals;
  }

  @Override
  public String name() {
    return shm ? "guard-keyed-create-shm" : "guard-keyed-create";
  }

  @Override
  public boolean remote() {
    return true;
  }

  @Override
  public void run(int thread, long sequence) throws Exception {
    Host host = hosts.computeIfAbsent(thread, this::open);
    JsonNode result = host.call(sequence);
    String outcome = result.path("_meta").path(GuardConventions.OUTCOME).asText();
    if (result.path("isError").asBoolean() || !"executed".equals(outcome)) {
      throw new IllegalStateException("guard call not executed: " + outcome);
    }
  }

  private Host open(int thread) {
    try {
      return new Host(
          GuardConfig.builder()
              .endpoint(target.app.mcpUri().orElseThrow())
              .token(token)
              .journal(journals().resolve("guard-" + thread + ".db"))
              .build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    for (Host host : hosts.values()) {
      host.close();
    }
    hosts.clear();
    if (journals == null) {
      return;
    }
    try (var files = Files.list(journals)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
      Files.deleteIfExists(journals);
    } catch (IOException e) {
      // a temporary directory; left behind at worst
    }
  }

  /** One host: a guard in this process, its stdio framing over a loopback socket pair. */
  private static final class Host {
    private final Socket hostSide;
    private final Socket guardSide;
    private final Guard guard;
    private final OutputStream toGuard;
    private final BufferedReader fromGuard;

    Host(GuardConfig config) throws IOException {
      try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        hostSide = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        guardSide = listener.accept();
      }
      hostSide.setTcpNoDelay(true);
      guardSide.setTcpNoDelay(true);
      guard = Guard.start(config, guardSide.getInputStream(), guardSide.getOutputStream());
      toGuard = hostSide.getOutputStream();
      fromGuard =
          new BufferedReader(
              new InputStreamReader(hostSide.getInputStream(), StandardCharsets.UTF_8));
      ObjectNode init = Json.object();
      init.put("protocolVersion", "2025-06-18");
      init.putObject("capabilities");
      init.putObject("clientInfo").put("name", "bench-host").put("version", "1");
      exchange(0, "initialize", init);
      send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    JsonNode call(long sequence) throws IOException {
      ObjectNode params = Json.object();
      params.put("name", "create-note");
      params.set("arguments", Json.parse(Target.NOTE));
      return exchange(sequence + 1, "tools/call", params);
    }

    private JsonNode exchange(long id, String method, JsonNode params) throws IOException {
      ObjectNode message = Json.object();
      message.put("jsonrpc", "2.0");
      message.put("id", id);
      message.put("method", method);
      message.set("params", params);
      send(Json.write(message));
      for (String line; (line = fromGuard.readLine()) != null; ) {
        JsonNode answer = Json.parse(line);
        if (answer.path("id").asLong(-1) == id) {
          if (answer.has("error")) {
            throw new IllegalStateException("JSON-RPC error from the guard: " + answer);
          }
          return answer.path("result");
        }
      }
      throw new IOException("the guard closed its output");
    }

    private void send(String line) throws IOException {
      toGuard.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      toGuard.flush();
    }

    void close() {
      try {
        hostSide.shutdownOutput();
      } catch (IOException e) {
        // closing anyway
      }
      guard.close();
      try {
        hostSide.close();
        guardSide.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
