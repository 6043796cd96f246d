package dev.toolledger.guard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The guard in a JVM of its own, driven as a host drives it: newline-delimited JSON-RPC on its
 * stdin and stdout (the MCP stdio transport), its log on a file.
 */
final class GuardProcess implements AutoCloseable {
  private final Process process;
  private final OutputStream in;
  private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
  private final AtomicLong ids = new AtomicLong();
  private final Path log;

  private GuardProcess(Process process, Path log) {
    this.process = process;
    this.in = process.getOutputStream();
    this.log = log;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                  messages.add(Json.parse(line));
                }
              } catch (IOException | RuntimeException e) {
                // the process ended
              }
            },
            "guard-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** The java command that runs the guard with this JVM's class path. */
  static List<String> command(URI endpoint, Path journal, Long deadlineMillis) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1"); // a short-lived process: start fast
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(GuardMain.class.getName());
    command.add(endpoint.toString());
    command.add(journal.toString());
    if (deadlineMillis != null) {
      command.add(Long.toString(deadlineMillis));
    }
    return command;
  }

  static GuardProcess start(URI endpoint, String token, Path journal, Path log, Long deadline)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command(endpoint, journal, deadline))
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("TOOLLEDGER_TOKEN", token);
    return new GuardProcess(builder.start(), log);
  }

  /** initialize and notifications/initialized, as every host begins. */
  JsonNode initialize() throws Exception {
    ObjectNode params = Json.object();
    params.put("protocolVersion", "2025-06-18");
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "raw-host").put("version", "1");
    JsonNode result = request("initialize", params);
    ObjectNode initialized = Json.object();
    initialized.put("jsonrpc", "2.0");
    initialized.put("method", "notifications/initialized");
    send(initialized);
    return result;
  }

  JsonNode listTools() throws Exception {
    return request("tools/list", Json.object());
  }

  /** Sends a tools/call and returns its id without waiting. */
  long callAsync(String tool, JsonNode arguments) throws IOException {
    ObjectNode params = Json.object();
    params.put("name", tool);
    params.set("arguments", arguments);
    long id = ids.incrementAndGet();
    send(message(id, "tools/call", params));
    return id;
  }

  JsonNode call(String tool, JsonNode arguments) throws Exception {
    return await(callAsync(tool, arguments));
  }

  JsonNode request(String method, JsonNode params) throws Exception {
    long id = ids.incrementAndGet();
    send(message(id, method, params));
    return await(id);
  }

  /** The result of request {@code id}; fails on a JSON-RPC error or after 30 s. */
  JsonNode await(long id) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    List<JsonNode> others = new ArrayList<>();
    try {
      while (System.nanoTime() < giveUp) {
        JsonNode message = messages.poll(100, TimeUnit.MILLISECONDS);
        if (message == null) {
          continue;
        }
        if (message.path("id").asLong(-1) == id) {
          if (message.has("error")) {
            throw new AssertionError("JSON-RPC error: " + message);
          }
          return message.get("result");
        }
        others.add(message);
      }
    } finally {
      messages.addAll(others);
    }
    throw new AssertionError("no answer to request " + id + "; guard log:\n" + log());
  }

  /** Waits (up to {@code seconds}) for a notification with this method. */
  JsonNode awaitNotification(String method, int seconds) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<JsonNode> others = new ArrayList<>();
    try {
      while (System.nanoTime() < giveUp) {
        JsonNode message = messages.poll(100, TimeUnit.MILLISECONDS);
        if (message == null) {
          continue;
        }
        if (!message.has("id") && method.equals(message.path("method").asText())) {
          return message;
        }
        others.add(message);
      }
    } finally {
      messages.addAll(others);
    }
    throw new AssertionError("no " + method + " notification; guard log:\n" + log());
  }

  String log() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** SIGKILL: no shutdown hook, no journal close. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  private static ObjectNode message(long id, String method, JsonNode params) {
    ObjectNode message = Json.object();
    message.put("jsonrpc", "2.0");
    message.put("id", id);
    message.put("method", method);
    message.set("params", params);
    return message;
  }

  private synchronized void send(JsonNode message) throws IOException {
    in.write((Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Closes stdin, as a host does, and waits for the guard to end. */
  @Override
  public void close() throws Exception {
    try {
      in.close();
    } catch (IOException e) {
      // already gone
    }
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(15, TimeUnit.SECONDS);
    }
  }
}
