package dev.toolledger.declarative.mcp;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.FieldReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one {@code kind: mcp} entry, refusing every mistake at once, each with its file, line and
 * field. See {@code docs/declarative-mcp-tools.md} for the format.
 */
final class McpToolReader {
  static final Set<String> FIELDS = Set.of("upstream", "tool", "arguments", "lookup", "lease");
  static final Set<String> UPSTREAM_FIELDS =
      Set.of("command", "env", "url", "headers", "timeout", "start-timeout");
  static final Set<String> LOOKUP_FIELDS = Set.of("tool", "arguments", "found", "not-found");

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(20);
  static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final String NOT_FOUND_PENDING = "pending";
  static final String NOT_FOUND_ABSENT = "absent";

  private static final Set<String> RESTRICTED_HEADERS =
      Set.of(
          "host",
          "connection",
          "content-length",
          "transfer-encoding",
          "expect",
          "upgrade",
          "te",
          "trailer",
          "keep-alive",
          "content-type",
          "accept",
          "mcp-session-id",
          "mcp-protocol-version",
          "last-event-id");

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.\\-/]{1,128}");

  private final Definition definition;
  private final FieldReader fields;
  private final List<DefinitionException> errors;
  private final boolean hasParameters;

  private McpToolReader(Definition definition) {
    this.definition = definition;
    this.fields = new FieldReader(definition);
    this.errors = fields.errors();
    this.hasParameters = definition.field("/parameters").isPresent();
  }

  static McpTool read(Definition definition) throws DefinitionException {
    return new McpToolReader(definition).read();
  }

  private McpTool read() throws DefinitionException {
    fields.refuseUnknownFields(FIELDS);
    McpTool.Declared declared = declared();
    Duration timeout = null;
    Duration startTimeout = null;
    Upstream.Endpoint endpoint = null;
    Optional<JsonNode> upstreamNode = fields.mapping("/upstream", true, UPSTREAM_FIELDS);
    if (upstreamNode.isPresent()) {
      timeout = fields.duration("/upstream/timeout", DEFAULT_TIMEOUT);
      startTimeout = fields.duration("/upstream/start-timeout", DEFAULT_START_TIMEOUT);
      endpoint = endpoint(timeout == null ? DEFAULT_TIMEOUT : timeout);
    }
    String tool = toolName("/tool", true);
    Optional<ArgumentsTemplate> arguments = arguments("/arguments");
    Optional<McpTool.Lookup> lookup = lookup();
    Duration lease = fields.duration("/lease", DEFAULT_LEASE);
    if (timeout != null && lease != null) {
      Duration needed = timeout.multipliedBy(2).plus(McpTool.SEND_MARGIN);
      if (lease.compareTo(needed) <= 0) {
        errors.add(
            definition.error(
                definition.field("/lease").isPresent() ? "/lease" : "/upstream/timeout",
                "the lease ("
                    + lease.toMillis()
                    + " ms) must be longer than twice the upstream timeout and a second, "
                    + needed.toMillis()
                    + " ms, or recovery would take over a claim whose call is still running"));
      }
    }
    fields.throwIfAny();
    return new McpTool(
        declared,
        new Upstream(endpoint, timeout, startTimeout),
        tool,
        arguments,
        lookup,
        lease,
        timeout);
  }

  /** The common fields; {@code parameters} may be absent (then the upstream's schema is used). */
  private McpTool.Declared declared() {
    Definition checked = definition;
    if (!hasParameters) {
      ObjectNode node = ((ObjectNode) definition.node()).deepCopy();
      node.putObject("parameters").put("type", "object");
      checked =
          new Definition(
              definition.file(),
              definition.index(),
              node,
              definition.lines(),
              definition.environment());
    }
    try {
      ToolDescriptor descriptor = checked.descriptor();
      Optional<String> description = definition.optionalText("/description");
      return new McpTool.Declared(
          descriptor.name(),
          descriptor.version(),
          description,
          hasParameters ? Optional.of(descriptor.inputSchema()) : Optional.empty(),
          descriptor.retention());
    } catch (DefinitionException e) {
      errors.add(e);
      return null;
    }
  }

  private Upstream.Endpoint endpoint(Duration timeout) {
    boolean command = definition.field("/upstream/command").isPresent();
    boolean url = definition.field("/upstream/url").isPresent();
    if (command == url) {
      errors.add(
          definition.error(
              "/upstream",
              command
                  ? "has both command and url; an upstream is a program (command) or a Streamable"
                      + " HTTP endpoint (url)"
                  : "needs command (a program speaking MCP over stdio) or url (a Streamable HTTP"
                      + " endpoint)"));
      return null;
    }
    if (command) {
      if (definition.field("/upstream/headers").isPresent()) {
        errors.add(
            definition.error(
                "/upstream/headers", "only a url upstream has headers; a program gets env"));
      }
      List<String> words = command();
      Map<String, String> env = env();
      return words == null || env == null ? null : new Upstream.Stdio(words, env);
    }
    if (definition.field("/upstream/env").isPresent()) {
      errors.add(
          definition.error(
              "/upstream/env", "only a command upstream has env; a url upstream gets headers"));
    }
    URI uri = url();
    Map<String, String> headers = headers();
    if (uri == null || headers == null) {
      return null;
    }
    Duration connect = timeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? timeout : MAX_CONNECT_TIMEOUT;
    return new Upstream.StreamableHttp(uri, headers, connect);
  }

  private List<String> command() {
    String pointer = "/upstream/command";
    JsonNode node = definition.field(pointer).orElseThrow();
    if (!node.isArray() || node.isEmpty()) {
      errors.add(
          definition.error(
              pointer,
              "must be a list: the program and its arguments, like [node, server.js] (no shell"
                  + " is involved)"));
      return null;
    }
    List<String> words = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < node.size(); i++) {
      JsonNode word = node.get(i);
      if (!word.isTextual() && !word.isNumber()) {
        errors.add(definition.error(pointer + "/" + i, "must be a string"));
        ok = false;
        continue;
      }
      String value = fields.substitute(pointer + "/" + i, word.asText());
      if (value == null) {
        ok = false;
      } else if (i == 0 && value.isBlank()) {
        errors.add(definition.error(pointer + "/0", "names no program"));
        ok = false;
      } else {
        words.add(value);
      }
    }
    return ok ? words : null;
  }

  private Map<String, String> env() {
    String pointer = "/upstream/env";
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      return Map.of();
    }
    if (!node.get().isObject()) {
      errors.add(definition.error(pointer, "must be a mapping of variable names to values"));
      return null;
    }
    Map<String, String> env = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<String, JsonNode> field : node.get().properties()) {
      String at = pointer + "/" + ArgumentsTemplate.escape(field.getKey());
      if (!ENV_NAME.matcher(field.getKey()).matches()) {
        errors.add(definition.error(at, "'" + field.getKey() + "' is not a variable name"));
        ok = false;
        continue;
      }
      if (!field.getValue().isTextual()) {
        errors.add(definition.error(at, "must be a string (quote it)"));
        ok = false;
        continue;
      }
      String value =
          fields.valueFromFile(
              at, field.getKey(), field.getValue().textValue(), "\"${TRACKER_TOKEN}\"");
      if (value == null) {
        ok = false;
      } else {
        env.put(field.getKey(), value);
      }
    }
    return ok ? env : null;
  }

  private URI url() {
    String pointer = "/upstream/url";
    Optional<String> text = fields.text(pointer);
    if (text.isEmpty()) {
      return null;
    }
    String url = text.get();
    String lower = url.toLowerCase(Locale.ROOT);
    if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
      errors.add(definition.error(pointer, "must start with http:// or https://"));
      return null;
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      errors.add(definition.error(pointer, "is not a valid URL (" + e.getReason() + ")"));
      return null;
    }
    if (uri.getHost() == null) {
      errors.add(definition.error(pointer, "has no valid host name"));
      return null;
    }
    if (uri.getRawUserInfo() != null) {
      errors.add(
          definition.error(
              pointer,
              "must not carry credentials (user:password@host); send them in a header whose"
                  + " value comes from the environment, like \"Bearer ${TRACKER_TOKEN}\""));
      return null;
    }
    if (uri.getRawFragment() != null) {
      errors.add(definition.error(pointer, "must not have a fragment (#...)"));
      return null;
    }
    if (uri.getRawQuery() != null) {
      errors.add(
          definition.error(
              pointer,
              "must not have a query: a query may carry a credential, and URLs are shown in"
                  + " messages; send it in a header"));
      return null;
    }
    if (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/")) {
      errors.add(definition.error(pointer, "must name the MCP path, like http://host:8080/mcp"));
      return null;
    }
    return uri;
  }

  private Map<String, String> headers() {
    return fields.headers(
        "/upstream/headers",
        RESTRICTED_HEADERS,
        "MCP client",
        "\"Bearer ${TRACKER_TOKEN}\" or \"${API_KEY}\"",
        name -> null);
  }

  private String toolName(String pointer, boolean required) {
    Optional<String> text = fields.text(pointer);
    if (text.isEmpty()) {
      if (required && definition.field(pointer).isEmpty()) {
        errors.add(definition.error(pointer, "is required: the name of the upstream's tool"));
      }
      return null;
    }
    if (!TOOL_NAME.matcher(text.get()).matches()) {
      errors.add(
          definition.error(
              pointer,
              "'"
                  + text.get()
                  + "' is not an MCP tool name (1 to 128 letters, digits, '_', '-', '.', '/')"));
      return null;
    }
    return text.get();
  }

  private Optional<ArgumentsTemplate> arguments(String pointer) {
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      return Optional.empty();
    }
    if (!node.get().isObject()) {
      errors.add(
          definition.error(
              pointer, "must be a mapping: the upstream tool's arguments, a JSON object"));
      return Optional.empty();
    }
    ArgumentsTemplate template = new ArgumentsTemplate(node.get());
    for (String[] placeholder : template.placeholders()) {
      String name = placeholder[0];
      String at = pointer + placeholder[1];
      boolean whole = Boolean.parseBoolean(placeholder[2]);
      if (fields.properties().contains(name)) {
        if (!whole) {
          fields.fillable(at, name);
        }
      } else if (!name.equals(ArgumentsTemplate.DOWNSTREAM_KEY) && hasParameters) {
        errors.add(
            definition.error(
                at,
                "{"
                    + name
                    + "} is not a parameter; the parameters' properties are "
                    + fields.propertiesOrNone()
                    + " (and {downstreamKey} is the operation's downstream key)"));
      }
    }
    return Optional.of(template);
  }

  private Optional<McpTool.Lookup> lookup() {
    Optional<JsonNode> node = fields.mapping("/lookup", false, LOOKUP_FIELDS);
    if (node.isEmpty()) {
      return Optional.empty();
    }
    String tool = toolName("/lookup/tool", true);
    Optional<ArgumentsTemplate> arguments = arguments("/lookup/arguments");
    if (definition.field("/lookup/arguments").isEmpty()) {
      errors.add(
          definition.error(
              "/lookup/arguments",
              "is required: the lookup tool's arguments, usually with {downstreamKey} or the"
                  + " parameters that identify the effect"));
    }
    JsonPointer found = JsonPointer.empty();
    Optional<String> foundText = fields.text("/lookup/found");
    if (foundText.isPresent()) {
      try {
        found = JsonPointer.compile(foundText.get());
      } catch (IllegalArgumentException e) {
        errors.add(
            definition.error(
                "/lookup/found", "must be a JSON Pointer into the lookup's result, like /ticket"));
      }
    }
    boolean absent = false;
    Optional<String> notFound = fields.text("/lookup/not-found");
    if (notFound.isPresent()) {
      if (notFound.get().equals(NOT_FOUND_ABSENT)) {
        absent = true;
      } else if (!notFound.get().equals(NOT_FOUND_PENDING)) {
        errors.add(
            definition.error(
                "/lookup/not-found",
                "must be "
                    + NOT_FOUND_PENDING
                    + " (ask again later; the default) or "
                    + NOT_FOUND_ABSENT
                    + " (a promise that the upstream did not and never will perform it)"));
      }
    }
    if (tool == null || arguments.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new McpTool.Lookup(tool, arguments.get(), found, absent));
  }
}
