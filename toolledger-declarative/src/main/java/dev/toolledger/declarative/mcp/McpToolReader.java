package dev.toolledger.declarative.mcp;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.EnvironmentValues;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
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

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern SHORT_DURATION = Pattern.compile("([1-9][0-9]{0,8})(ms|s|m|h)");
  private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.\\-/]{1,128}");

  private final Definition definition;
  private final List<DefinitionException> errors = new ArrayList<>();
  private final Set<String> properties = new TreeSet<>();
  private final Set<String> fillable = new TreeSet<>();
  private final boolean hasParameters;

  private McpToolReader(Definition definition) {
    this.definition = definition;
    this.hasParameters = definition.field("/parameters").isPresent();
    JsonNode schema = definition.node().path("parameters");
    for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
      properties.add(property.getKey());
      if (property.getValue().has("default")) {
        fillable.add(property.getKey());
      }
    }
    for (JsonNode required : schema.path("required")) {
      if (properties.contains(required.asText())) {
        fillable.add(required.asText());
      }
    }
  }

  static McpTool read(Definition definition) throws DefinitionException {
    return new McpToolReader(definition).read();
  }

  private McpTool read() throws DefinitionException {
    try {
      definition.refuseUnknownFields(FIELDS);
    } catch (DefinitionException e) {
      errors.add(e);
    }
    McpTool.Declared declared = declared();
    Duration timeout = null;
    Duration startTimeout = null;
    Upstream.Endpoint endpoint = null;
    Optional<JsonNode> upstreamNode = mapping("/upstream", true, UPSTREAM_FIELDS);
    if (upstreamNode.isPresent()) {
      timeout = duration("/upstream/timeout", DEFAULT_TIMEOUT);
      startTimeout = duration("/upstream/start-timeout", DEFAULT_START_TIMEOUT);
      endpoint = endpoint(timeout == null ? DEFAULT_TIMEOUT : timeout);
    }
    String tool = toolName("/tool", true);
    Optional<ArgumentsTemplate> arguments = arguments("/arguments");
    Optional<McpTool.Lookup> lookup = lookup();
    Duration lease = duration("/lease", DEFAULT_LEASE);
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
    DefinitionException.throwIfAny(errors);
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
      String value = substitute(pointer + "/" + i, word.asText());
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
      String written = field.getValue().textValue();
      if (EnvironmentValues.sensitive(field.getKey())
          && !EnvironmentValues.fromEnvironment(written)) {
        errors.add(inlineSecret(at, field.getKey(), "\"${TRACKER_TOKEN}\""));
        ok = false;
        continue;
      }
      String value = substitute(at, written);
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
    Optional<String> text = text(pointer);
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
    String pointer = "/upstream/headers";
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      return Map.of();
    }
    if (!node.get().isObject()) {
      errors.add(definition.error(pointer, "must be a mapping of header names to values"));
      return null;
    }
    Map<String, String> headers = new LinkedHashMap<>();
    Set<String> seen = new TreeSet<>();
    boolean ok = true;
    for (Map.Entry<String, JsonNode> field : node.get().properties()) {
      String name = field.getKey();
      String at = pointer + "/" + ArgumentsTemplate.escape(name);
      if (!TOKEN.matcher(name).matches()) {
        errors.add(definition.error(at, "'" + name + "' is not a valid header name"));
        ok = false;
        continue;
      }
      if (RESTRICTED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        errors.add(
            definition.error(
                at, name + " is set by the MCP client itself and cannot be configured"));
        ok = false;
        continue;
      }
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        errors.add(definition.error(at, "header " + name + " is given twice"));
        ok = false;
        continue;
      }
      if (!field.getValue().isTextual()) {
        errors.add(definition.error(at, "must be a string (quote it)"));
        ok = false;
        continue;
      }
      String written = field.getValue().textValue();
      if (EnvironmentValues.sensitive(name) && !EnvironmentValues.fromEnvironment(written)) {
        errors.add(inlineSecret(at, name, "\"Bearer ${TRACKER_TOKEN}\" or \"${API_KEY}\""));
        ok = false;
        continue;
      }
      String value = substitute(at, written);
      if (value == null) {
        ok = false;
      } else {
        headers.put(name, value);
      }
    }
    return ok ? headers : null;
  }

  private DefinitionException inlineSecret(String pointer, String name, String example) {
    return definition.error(
        pointer,
        "looks like an inline secret: the value of "
            + name
            + " must come from the environment, like "
            + example
            + "; never write the secret itself into the tools file");
  }

  /** {@code written} with its {@code ${VARIABLE}}s resolved; null after an error. */
  private String substitute(String pointer, String written) {
    return EnvironmentValues.substitute(definition, errors, pointer, written);
  }

  private String toolName(String pointer, boolean required) {
    Optional<String> text = text(pointer);
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
      if (properties.contains(name)) {
        if (!whole && !fillable.contains(name)) {
          errors.add(
              definition.error(
                  at,
                  "{"
                      + name
                      + "} must name a required parameter or one with a default: this text cannot"
                      + " be built without it"));
        }
      } else if (!name.equals(ArgumentsTemplate.DOWNSTREAM_KEY) && hasParameters) {
        errors.add(
            definition.error(
                at,
                "{"
                    + name
                    + "} is not a parameter; the parameters' properties are "
                    + (properties.isEmpty() ? "none" : String.join(", ", properties))
                    + " (and {downstreamKey} is the operation's downstream key)"));
      }
    }
    return Optional.of(template);
  }

  private Optional<McpTool.Lookup> lookup() {
    Optional<JsonNode> node = mapping("/lookup", false, LOOKUP_FIELDS);
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
    Optional<String> foundText = text("/lookup/found");
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
    Optional<String> notFound = text("/lookup/not-found");
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

  // ---- pieces ----

  private Optional<JsonNode> mapping(String pointer, boolean required, Set<String> fields) {
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      if (required) {
        errors.add(definition.error(pointer, "is required"));
      }
      return Optional.empty();
    }
    if (!node.get().isObject()) {
      errors.add(definition.error(pointer, "must be a mapping of fields"));
      return Optional.empty();
    }
    for (Iterator<String> names = node.get().fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        errors.add(
            definition.error(
                pointer + "/" + ArgumentsTemplate.escape(name),
                "unknown field; " + pointer.substring(1) + " has " + new TreeSet<>(fields)));
      }
    }
    return node;
  }

  private Optional<String> text(String pointer) {
    try {
      return definition.optionalText(pointer);
    } catch (DefinitionException e) {
      errors.add(e);
      return Optional.empty();
    }
  }

  private Duration duration(String pointer, Duration fallback) {
    Optional<String> text = text(pointer);
    if (text.isEmpty()) {
      return definition.field(pointer).isPresent() ? null : fallback;
    }
    Matcher shorthand = SHORT_DURATION.matcher(text.get());
    Duration duration = null;
    if (shorthand.matches()) {
      long amount = Long.parseLong(shorthand.group(1));
      duration =
          switch (shorthand.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
          };
    } else {
      try {
        duration = Duration.parse(text.get());
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    if (duration == null || duration.isNegative() || duration.isZero()) {
      errors.add(
          definition.error(
              pointer,
              "'"
                  + text.get()
                  + "' is not a positive duration; write 500ms, 5s, 2m, 1h or ISO-8601 (PT5S)"));
      return null;
    }
    return duration;
  }
}
