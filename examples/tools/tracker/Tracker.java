import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A tiny issue tracker with MCP write tools and no idempotency at all, to put ToolLedger in front of
 * (see tracker.yaml and docs/declarative-mcp-tools.md). Every ticket it creates is one line of
 * DATA/tickets.jsonl: its own count of effects.
 *
 * <ul>
 *   <li>{@code create_ticket {title, ref?}}: creates a ticket, every time it is called.
 *   <li>{@code find_ticket {ref}}: the ticket created with that ref, or {@code {"ticket": null}}.
 * </ul>
 *
 * <p>Run {@code java -cp toolledger.jar Tracker.java stdio DATA} (ToolLedger starts it itself
 * through the tools file) or {@code ... http PORT DATA} (Streamable HTTP at /mcp; PORT 0 picks one
 * and prints {@code listening PORT}). With TRACKER_TOKEN set in its environment, the HTTP endpoint
 * wants {@code Authorization: Bearer TRACKER_TOKEN}; over stdio every call is refused unless
 * TRACKER_TOKEN is set, the way a real server needs its credentials.
 *
 * <p>For demonstrations of failure, a file DATA/fault holding one word makes the next
 * create_ticket misbehave once: {@code lose-answer} (create, then exit without answering), {@code
 * hang-after-effect} (create, then answer a minute late), {@code hang-before-effect} (wait a
 * minute, then create), {@code refuse} (answer isError without creating).
 */
public final class Tracker {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path data;

  private Tracker(Path data) {
    this.data = data;
  }

  public static void main(String[] args) throws Exception {
    // Over stdio, standard output carries the protocol: everything else, logs included, goes to
    // standard error.
    PrintStream protocol = System.out;
    System.setOut(System.err);
    if (args.length == 2 && args[0].equals("stdio")) {
      Tracker tracker = new Tracker(Files.createDirectories(Path.of(args[1])));
      // Which process serves this data directory, for demonstrations that kill it.
      Files.writeString(
          tracker.data.resolve("stdio.pid"), Long.toString(ProcessHandle.current().pid()));
      McpServer.sync(new StdioServerTransportProvider(mapper(), exitAtEndOf(System.in), protocol))
          .serverInfo("tracker", "1")
          .jsonMapper(mapper())
          .capabilities(ServerCapabilities.builder().tools(false).build())
          .tools(tracker.tools())
          .build();
      // The transport reads standard input on its own thread; the process ends when ToolLedger
      // closes it (end of input) or kills it.
      Thread.currentThread().join();
    } else if (args.length == 3 && args[0].equals("http")) {
      Tracker tracker = new Tracker(Files.createDirectories(Path.of(args[2])));
      Server server = tracker.http(Integer.parseInt(args[1]));
      protocol.println("listening " + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
      protocol.flush();
      server.join();
    } else {
      System.err.println("usage: Tracker stdio DATA | Tracker http PORT DATA");
      System.exit(2);
    }
  }

  /** Standard input that ends the process when ToolLedger closes it. */
  private static InputStream exitAtEndOf(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b < 0) {
          Runtime.getRuntime().halt(0);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n < 0) {
          Runtime.getRuntime().halt(0);
        }
        return n;
      }
    };
  }

  private static McpJsonMapper mapper() {
    return new JacksonMcpJsonMapper(JSON);
  }

  private Server http(int port) throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(mapper())
            .mcpEndpoint("/mcp")
            .build();
    McpServer.sync(transport)
        .serverInfo("tracker", "1")
        .jsonMapper(mapper())
        .capabilities(ServerCapabilities.builder().tools(false).build())
        .tools(tools())
        .build();
    String token = System.getenv("TRACKER_TOKEN");
    HttpServlet guarded =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest request, HttpServletResponse response)
              throws jakarta.servlet.ServletException, IOException {
            if (token != null && !("Bearer " + token).equals(request.getHeader("Authorization"))) {
              response.sendError(401);
              return;
            }
            transport.service(request, response);
          }
        };
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    ServletHolder holder = new ServletHolder(guarded);
    holder.setAsyncSupported(true);
    context.addServlet(holder, "/mcp");
    server.setHandler(context);
    server.start();
    return server;
  }

  private List<SyncToolSpecification> tools() {
    Tool create =
        Tool.builder()
            .name("create_ticket")
            .description("Creates a ticket. Not idempotent: every call creates one.")
            .inputSchema(
                schema(
                    "{\"type\":\"object\",\"required\":[\"title\"],\"additionalProperties\":false,"
                        + "\"properties\":{\"title\":{\"type\":\"string\",\"minLength\":1},"
                        + "\"ref\":{\"type\":\"string\"}}}"))
            .build();
    Tool find =
        Tool.builder()
            .name("find_ticket")
            .description("The ticket created with a ref, or null.")
            .inputSchema(
                schema(
                    "{\"type\":\"object\",\"required\":[\"ref\"],"
                        + "\"properties\":{\"ref\":{\"type\":\"string\"}}}"))
            .build();
    return List.of(
        SyncToolSpecification.builder()
            .tool(create)
            .callHandler((exchange, request) -> create(request))
            .build(),
        SyncToolSpecification.builder()
            .tool(find)
            .callHandler((exchange, request) -> find(request))
            .build());
  }

  private CallToolResult create(CallToolRequest request) {
    if (System.getenv("TRACKER_TOKEN") == null) {
      return error("TRACKER_TOKEN is not set: no credentials for the tracker");
    }
    String fault = takeFault();
    if (fault.equals("refuse")) {
      return error("the tracker refuses this title");
    }
    if (fault.equals("hang-before-effect")) {
      sleep(60_000);
    }
    ObjectNode ticket;
    synchronized (Tracker.class) {
      ticket = JSON.createObjectNode();
      ticket.put("id", "T-" + (tickets().size() + 1));
      ticket.put("title", String.valueOf(request.arguments().get("title")));
      Object ref = request.arguments().get("ref");
      if (ref != null) {
        ticket.put("ref", ref.toString());
      }
      append(ticket);
    }
    if (fault.equals("lose-answer")) {
      Runtime.getRuntime().halt(3);
    }
    if (fault.equals("hang-after-effect")) {
      sleep(60_000);
    }
    return CallToolResult.builder()
        .addTextContent("created " + ticket.get("id").asText())
        .structuredContent(JSON.convertValue(ticket, Map.class))
        .build();
  }

  private CallToolResult find(CallToolRequest request) {
    Object ref = request.arguments().get("ref");
    ObjectNode answer = JSON.createObjectNode();
    answer.putNull("ticket");
    for (JsonNode ticket : tickets()) {
      if (ref != null && ref.toString().equals(ticket.path("ref").asText(null))) {
        answer.set("ticket", ticket);
      }
    }
    return CallToolResult.builder()
        .addTextContent(answer.toString())
        .structuredContent(JSON.convertValue(answer, Map.class))
        .build();
  }

  private static CallToolResult error(String message) {
    return CallToolResult.builder().addTextContent(message).isError(true).build();
  }

  private List<JsonNode> tickets() {
    Path file = data.resolve("tickets.jsonl");
    try {
      if (!Files.exists(file)) {
        return List.of();
      }
      return Files.readAllLines(file).stream()
          .filter(line -> !line.isBlank())
          .map(Tracker::parse)
          .toList();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void append(ObjectNode ticket) {
    try (FileChannel channel =
        FileChannel.open(
            data.resolve("tickets.jsonl"),
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND,
            StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap((ticket + "\n").getBytes(StandardCharsets.UTF_8)));
      channel.force(true);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private String takeFault() {
    Path file = data.resolve("fault");
    try {
      if (!Files.exists(file)) {
        return "";
      }
      String fault = Files.readString(file).strip();
      Files.delete(file);
      return fault;
    } catch (IOException e) {
      return "";
    }
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Object> schema(String json) {
    try {
      return JSON.readValue(json, Map.class);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
