package dev.toolledger.declarative.mcp;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Content;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A tool of {@code kind: mcp}: one write tool of another MCP server, called once per operation
 * through the official SDK's client. The engine claims the key, calls {@link #perform} outside any
 * transaction and records the outcome under its fencing token; this class only maps MCP onto that:
 *
 * <ul>
 *   <li>a result is the outcome to record: {@value #SUCCESS} with {@code {"content": [...],
 *       "structuredContent": {...}}}, or {@value #TOOL_ERROR} with the same body when the upstream
 *       answered {@code isError: true} (a business error, replayed like a success);
 *   <li>a JSON-RPC "invalid params" refusal is recorded as {@value #INVALID_ARGUMENTS} with {@code
 *       {"error": {"code", "message"}}}; other refusals after which the server certainly ran
 *       nothing (parse error, invalid request, method not found) and a server that could not be
 *       reached, started or initialized mean nothing happened: the claim is released;
 *   <li>anything after the call was sent (no answer within the timeout, a program that died, a
 *       dropped connection, another JSON-RPC error) throws: the effect may or may not have
 *       happened, and the engine settles it by the lookup when there is one, else as {@code
 *       UNKNOWN}. It is never called again: MCP tools promise no idempotency.
 * </ul>
 *
 * <p>Without {@code parameters} in the entry, the descriptor takes the upstream tool's input schema
 * (and its description, unless one is written) from the server's {@code tools/list} the first time
 * it is asked for, which is when a server registers the tool at start: an upstream that cannot be
 * reached then stops the start.
 *
 * <p>It never logs; {@link #toString()} shows no command argument, environment value, header value
 * or key. {@link #close()} stops the program or ends the session.
 */
final class McpTool implements ExternalTool, AutoCloseable {
  /** The status recorded for a result without {@code isError}. */
  static final int SUCCESS = 200;

  /** The status recorded for an {@code isError: true} result. */
  static final int TOOL_ERROR = 422;

  /** The status recorded for a JSON-RPC "invalid params" refusal. */
  static final int INVALID_ARGUMENTS = 400;

  /** In the call's {@code _meta}: the operation's downstream key, for upstreams that use it. */
  static final String DOWNSTREAM_KEY_META = "dev.toolledger/downstream-key";

  /** Kept between the latest moment a call is sent and the end of its lease minus the timeout. */
  static final Duration SEND_MARGIN = Duration.ofSeconds(1);

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> ARGUMENTS = new TypeReference<>() {};
  private static final McpJsonMapper SDK_JSON = new JacksonMcpJsonMapperSupplier().get();

  /** What is known of the descriptor before the upstream is asked. */
  record Declared(
      String name,
      String version,
      Optional<String> description,
      Optional<JsonNode> parameters,
      Duration retention) {}

  /** The read tool that tells whether an effect happened. */
  record Lookup(
      String tool, ArgumentsTemplate arguments, JsonPointer found, boolean absentWhenNotFound) {}

  private final Declared declared;
  private final String upstreamTool;
  private final Optional<ArgumentsTemplate> arguments;
  private final Optional<Lookup> lookup;
  private final Duration lease;
  private final Duration timeout;
  private final Upstream upstream;
  private volatile ToolDescriptor descriptor;

  McpTool(
      Declared declared,
      Upstream upstream,
      String upstreamTool,
      Optional<ArgumentsTemplate> arguments,
      Optional<Lookup> lookup,
      Duration lease,
      Duration timeout) {
    this.declared = Objects.requireNonNull(declared, "declared");
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.upstreamTool = Objects.requireNonNull(upstreamTool, "upstreamTool");
    this.arguments = Objects.requireNonNull(arguments, "arguments");
    this.lookup = Objects.requireNonNull(lookup, "lookup");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    declared
        .parameters()
        .ifPresent(
            schema ->
                this.descriptor =
                    new ToolDescriptor(
                        declared.name(),
                        declared.version(),
                        declared.description().orElse(""),
                        schema,
                        declared.retention()));
  }

  @Override
  public String name() {
    return declared.name();
  }

  /**
   * The descriptor; without declared {@code parameters}, read from the upstream's {@code
   * tools/list} on the first call.
   *
   * @throws IllegalStateException when the upstream cannot be asked or does not list the tool
   */
  @Override
  public ToolDescriptor descriptor() {
    ToolDescriptor known = descriptor;
    if (known != null) {
      return known;
    }
    synchronized (this) {
      if (descriptor == null) {
        descriptor = fetchDescriptor();
      }
      return descriptor;
    }
  }

  private ToolDescriptor fetchDescriptor() {
    String where =
        "tool "
            + declared.name()
            + ": the input schema of "
            + upstreamTool
            + " at the upstream ("
            + upstream.endpoint().describe()
            + ")";
    List<Tool> tools;
    try {
      tools = upstream.listTools();
    } catch (Upstream.NothingSent | Upstream.UncertainCall e) {
      throw new IllegalStateException(
          where
              + " cannot be read: "
              + e.getMessage()
              + "; start the upstream or write"
              + " parameters in the tools file");
    }
    Tool tool =
        tools.stream()
            .filter(t -> upstreamTool.equals(t.name()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        where + " cannot be read: the upstream lists no tool of that name"));
    JsonNode schema =
        MAPPER.valueToTree(tool.inputSchema() == null ? Map.of() : tool.inputSchema());
    if (!schema.isObject() || !"object".equals(schema.path("type").asText())) {
      throw new IllegalStateException(where + " is not a JSON Schema of an object");
    }
    String description =
        declared.description().orElse(tool.description() == null ? "" : tool.description());
    return new ToolDescriptor(
        declared.name(), declared.version(), description, schema, declared.retention());
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public boolean supportsLookup() {
    return lookup.isPresent();
  }

  @Override
  public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
    // The call must be sent early enough to be answered within the lease: a program that takes
    // long to start must not send it after recovery took the claim over and settled it.
    long sendBy = System.nanoTime() + lease.minus(timeout).minus(SEND_MARGIN).toNanos();
    ObjectNode args;
    try {
      args =
          arguments.isPresent()
              ? arguments.get().expand(parameters, context.downstreamKey())
              : parameters.deepCopy().isObject()
                  ? (ObjectNode) parameters.deepCopy()
                  : JsonNodeFactory.instance.objectNode();
    } catch (ArgumentsTemplate.ArgumentsException e) {
      return EffectResult.notDone("the arguments could not be built: " + e.getMessage());
    }
    CallToolResult result;
    try {
      result = upstream.call(request(upstreamTool, args, context.downstreamKey()), sendBy);
    } catch (Upstream.NothingSent e) {
      return EffectResult.notDone(e.getMessage());
    } catch (Upstream.Refused e) {
      if (e.code() == Upstream.INVALID_PARAMS) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        ObjectNode error = body.putObject("error");
        error.put("code", e.code());
        error.put("message", e.upstreamMessage());
        return EffectResult.done(ToolResponse.of(INVALID_ARGUMENTS, body));
      }
      return EffectResult.notDone(e.getMessage() + ": the tool was not run");
    } catch (Upstream.UncertainCall e) {
      throw new UncertainUpstreamCallException(e.getMessage());
    }
    boolean error = Boolean.TRUE.equals(result.isError());
    return EffectResult.done(ToolResponse.of(error ? TOOL_ERROR : SUCCESS, body(result)));
  }

  @Override
  public DownstreamStatus lookup(EffectContext context, JsonNode parameters) throws Exception {
    Lookup spec =
        lookup.orElseThrow(() -> new UnsupportedOperationException(name() + " has no lookup"));
    ObjectNode args;
    try {
      args = spec.arguments().expand(parameters, context.downstreamKey());
    } catch (ArgumentsTemplate.ArgumentsException e) {
      throw new IOException("the lookup's arguments could not be built: " + e.getMessage());
    }
    CallToolResult result;
    try {
      result = upstream.call(request(spec.tool(), args, null), System.nanoTime() + lease.toNanos());
    } catch (Upstream.NothingSent | Upstream.Refused | Upstream.UncertainCall e) {
      throw new IOException("the lookup got no usable answer: " + e.getMessage());
    }
    if (Boolean.TRUE.equals(result.isError())) {
      throw new IOException("the lookup tool " + spec.tool() + " answered isError");
    }
    JsonNode structured = structured(result);
    JsonNode value = structured == null ? null : structured.at(spec.found());
    if (present(value)) {
      ObjectNode body = JsonNodeFactory.instance.objectNode();
      ObjectNode shown;
      if (value.isObject()) {
        shown = (ObjectNode) value.deepCopy();
      } else {
        shown = JsonNodeFactory.instance.objectNode();
        shown.set("value", value.deepCopy());
      }
      ObjectNode text = body.putArray("content").addObject();
      text.put("type", "text");
      text.put("text", shown.toString());
      body.set("structuredContent", shown);
      return new DownstreamStatus.Found(ToolResponse.of(SUCCESS, body));
    }
    return spec.absentWhenNotFound()
        ? new DownstreamStatus.Absent()
        : new DownstreamStatus.Pending();
  }

  private static CallToolRequest request(String tool, ObjectNode args, String downstreamKey) {
    CallToolRequest.Builder request =
        CallToolRequest.builder(tool).arguments(MAPPER.convertValue(args, ARGUMENTS));
    if (downstreamKey != null) {
      request.meta(Map.of(DOWNSTREAM_KEY_META, downstreamKey));
    }
    return request.build();
  }

  /** The recorded body of a result: its content and structured content, without its _meta. */
  static ObjectNode body(CallToolResult result) {
    JsonNode written;
    try {
      // The SDK's mapper writes each content block with its type.
      written = MAPPER.readTree(SDK_JSON.writeValueAsString(result));
    } catch (IOException e) {
      throw new IllegalStateException("the upstream's result cannot be written as JSON", e);
    }
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    JsonNode content = written.path("content");
    body.set("content", content.isArray() ? content : JsonNodeFactory.instance.arrayNode());
    if (written.hasNonNull("structuredContent")) {
      body.set("structuredContent", written.get("structuredContent"));
    }
    return body;
  }

  /**
   * Starts the program (or opens the session) now, so that the first call does not wait for it.
   *
   * @throws IllegalStateException when the upstream cannot be started or reached
   */
  void connect() {
    try {
      upstream.connect();
    } catch (Upstream.NothingSent e) {
      throw new IllegalStateException(e.getMessage());
    }
  }

  /** The structured content, or the first text block when it is a JSON object. */
  private static JsonNode structured(CallToolResult result) {
    if (result.structuredContent() != null) {
      return MAPPER.valueToTree(result.structuredContent());
    }
    for (Content content : result.content() == null ? List.<Content>of() : result.content()) {
      if (content instanceof TextContent text) {
        try {
          JsonNode parsed = MAPPER.readTree(text.text());
          return parsed != null && parsed.isObject() ? parsed : null;
        } catch (IOException e) {
          return null;
        }
      }
    }
    return null;
  }

  private static boolean present(JsonNode value) {
    if (value == null || value.isMissingNode() || value.isNull()) {
      return false;
    }
    if (value.isContainerNode()) {
      return !value.isEmpty();
    }
    return !(value.isBoolean() && !value.booleanValue());
  }

  @Override
  public void close() {
    upstream.close();
  }

  @Override
  public String toString() {
    return "McpTool["
        + declared.name()
        + " -> "
        + upstreamTool
        + " at "
        + upstream.endpoint().describe()
        + (lookup.isPresent() ? ", with lookup " + lookup.get().tool() : "")
        + "]";
  }
}
