package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.EnvironmentValues;
import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one {@code kind: http} entry, refusing every mistake at once, each with its file, line and
 * field. See {@code docs/declarative-http-tools.md} for the format.
 */
final class HttpToolReader {
  static final Set<String> FIELDS =
      Set.of("request", "idempotent-upstream", "outcomes", "lookup", "lease");
  static final Set<String> REQUEST_FIELDS =
      Set.of(
          "method", "url", "body", "headers", "idempotency-header", "timeout", "connect-timeout");
  static final Set<String> OUTCOME_FIELDS = Set.of("success", "business-error", "not-done");
  static final Set<String> LOOKUP_FIELDS = Set.of("method", "url", "headers", "found", "absent");
  static final List<String> METHODS = List.of("POST", "PUT", "PATCH", "DELETE");
  static final List<String> LOOKUP_METHODS = List.of("GET");

  static final String DEFAULT_IDEMPOTENCY_HEADER = "Idempotency-Key";
  static final String NO_IDEMPOTENCY_HEADER = "none";
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  static final String[] DEFAULT_SUCCESS = {"2xx"};
  static final String[] DEFAULT_BUSINESS_ERROR = {"400", "402", "404", "409", "422"};
  static final String[] DEFAULT_NOT_DONE = {"429", "503"};
  static final String[] DEFAULT_FOUND = {"200"};

  /** Headers the HTTP client sets itself, or that would change how the message is framed. */
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
          "keep-alive");

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  private static final Pattern SHORT_DURATION = Pattern.compile("([1-9][0-9]{0,8})(ms|s|m|h)");

  private final Definition definition;
  private final List<DefinitionException> errors = new ArrayList<>();
  private final Set<String> properties = new TreeSet<>();
  private final Set<String> fillable = new TreeSet<>();

  private HttpToolReader(Definition definition) {
    this.definition = definition;
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

  static HttpTool read(Definition definition) throws DefinitionException {
    return new HttpToolReader(definition).read();
  }

  private HttpTool read() throws DefinitionException {
    ToolDescriptor descriptor = null;
    try {
      definition.refuseUnknownFields(FIELDS);
    } catch (DefinitionException e) {
      errors.add(e);
    }
    try {
      descriptor = definition.descriptor();
    } catch (DefinitionException e) {
      errors.add(e);
    }
    HttpTool.Request request = request();
    boolean idempotent = idempotentUpstream();
    if (idempotent && request != null && request.idempotencyHeader().isEmpty()) {
      errors.add(
          definition.error(
              "/idempotent-upstream",
              "cannot be true with idempotency-header: none: the upstream would never see the key"
                  + " it is idempotent by"));
    }
    HttpTool.Outcomes outcomes = outcomes();
    Optional<HttpTool.Lookup> lookup = lookup(request);
    Duration lease = duration("/lease", DEFAULT_LEASE);
    if (request != null && lease != null) {
      boolean settlesByCalling = lookup.isPresent() || idempotent;
      Duration needed = request.timeout().multipliedBy(settlesByCalling ? 2 : 1);
      if (lease.compareTo(needed) <= 0) {
        errors.add(
            definition.error(
                definition.field("/lease").isPresent() ? "/lease" : "/request/timeout",
                "the lease ("
                    + lease.toMillis()
                    + " ms) must be longer than the request timeout"
                    + (settlesByCalling ? " twice (a lost answer is followed by another call)" : "")
                    + ", "
                    + needed.toMillis()
                    + " ms, or recovery would take over a claim whose call is still running"));
      }
    }
    DefinitionException.throwIfAny(errors);
    Set<String> inPath = new LinkedHashSet<>(request.url().pathPlaceholders());
    lookup.ifPresent(l -> inPath.addAll(l.url().pathPlaceholders()));
    inPath.retainAll(properties);
    return new HttpTool(
        withWholeSegments(descriptor, inPath), request, outcomes, lookup, idempotent, lease);
  }

  /** The values a path parameter may not take: they would add, remove or climb a segment. */
  static final List<String> NOT_A_SEGMENT = List.of("", ".", "..");

  /**
   * The descriptor with its schema refusing {@link #NOT_A_SEGMENT} for every parameter placed in a
   * URL path, so that such a call is {@code invalid-parameters} before anything is claimed. Added
   * as one more {@code allOf} entry: the declared schema is otherwise kept as written.
   */
  static ToolDescriptor withWholeSegments(ToolDescriptor descriptor, Set<String> inPath) {
    if (inPath.isEmpty()) {
      return descriptor;
    }
    JsonNodeFactory json = JsonNodeFactory.instance;
    ObjectNode schema = ((ObjectNode) descriptor.inputSchema()).deepCopy();
    ObjectNode guards = json.objectNode();
    for (String name : inPath) {
      ObjectNode notSegment = json.objectNode();
      ArrayNode values = notSegment.putObject("not").putArray("enum");
      NOT_A_SEGMENT.forEach(values::add);
      guards.set(name, notSegment);
    }
    ObjectNode entry = json.objectNode();
    entry.set("properties", guards);
    JsonNode allOf = schema.get("allOf");
    if (allOf instanceof ArrayNode list) {
      list.add(entry);
    } else {
      schema.putArray("allOf").add(entry);
    }
    return new ToolDescriptor(
        descriptor.name(),
        descriptor.version(),
        descriptor.description(),
        schema,
        descriptor.retention());
  }

  private HttpTool.Request request() {
    Optional<JsonNode> node = mapping("/request", true, REQUEST_FIELDS);
    if (node.isEmpty()) {
      return null;
    }
    String method = method("/request/method", METHODS, null);
    UrlTemplate url = url("/request/url", false);
    HttpTool.BodyMode mode;
    Optional<BodyTemplate> body = Optional.empty();
    if (definition.field("/request/body").isPresent()) {
      JsonNode template = definition.field("/request/body").get();
      checkBody("/request/body", template);
      mode = HttpTool.BodyMode.TEMPLATE;
      body = Optional.of(new BodyTemplate(template));
    } else {
      mode = "DELETE".equals(method) ? HttpTool.BodyMode.NONE : HttpTool.BodyMode.PARAMETERS;
    }
    Optional<String> idempotencyHeader = idempotencyHeader();
    List<Header> headers = headers("/request/headers", idempotencyHeader);
    Duration timeout = duration("/request/timeout", DEFAULT_TIMEOUT);
    Duration connectTimeout = duration("/request/connect-timeout", DEFAULT_CONNECT_TIMEOUT);
    if (timeout != null && connectTimeout != null && connectTimeout.compareTo(timeout) >= 0) {
      errors.add(
          definition.error(
              definition.field("/request/connect-timeout").isPresent()
                  ? "/request/connect-timeout"
                  : "/request/timeout",
              "the connect timeout ("
                  + connectTimeout.toMillis()
                  + " ms"
                  + (definition.field("/request/connect-timeout").isPresent()
                      ? ""
                      : ", the default; set request.connect-timeout")
                  + ") must be shorter than the request timeout ("
                  + timeout.toMillis()
                  + " ms)"));
    }
    if (method == null || url == null || headers == null || timeout == null) {
      return null;
    }
    return new HttpTool.Request(
        method,
        url,
        mode,
        body,
        headers,
        idempotencyHeader,
        timeout,
        connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout);
  }

  private Optional<String> idempotencyHeader() {
    String pointer = "/request/idempotency-header";
    Optional<String> name = text(pointer);
    if (name.isEmpty()) {
      return Optional.of(DEFAULT_IDEMPOTENCY_HEADER);
    }
    if (name.get().equalsIgnoreCase(NO_IDEMPOTENCY_HEADER)) {
      return Optional.empty();
    }
    if (!headerNameUsable(pointer, name.get())) {
      return Optional.of(DEFAULT_IDEMPOTENCY_HEADER);
    }
    return name;
  }

  private boolean idempotentUpstream() {
    Optional<JsonNode> value = definition.field("/idempotent-upstream");
    if (value.isEmpty()) {
      return false;
    }
    if (!value.get().isBoolean()) {
      errors.add(definition.error("/idempotent-upstream", "must be true or false"));
      return false;
    }
    return value.get().booleanValue();
  }

  private HttpTool.Outcomes outcomes() {
    mapping("/outcomes", false, OUTCOME_FIELDS);
    StatusSet success = statuses("/outcomes/success", "success", DEFAULT_SUCCESS);
    StatusSet businessError =
        statuses("/outcomes/business-error", "business-error", DEFAULT_BUSINESS_ERROR);
    StatusSet notDone = statuses("/outcomes/not-done", "not-done", DEFAULT_NOT_DONE);
    refuseOverlap("/outcomes/", success, businessError);
    refuseOverlap("/outcomes/", success, notDone);
    refuseOverlap("/outcomes/", businessError, notDone);
    return new HttpTool.Outcomes(success, businessError, notDone);
  }

  private Optional<HttpTool.Lookup> lookup(HttpTool.Request request) {
    Optional<JsonNode> node = mapping("/lookup", false, LOOKUP_FIELDS);
    if (node.isEmpty()) {
      return Optional.empty();
    }
    String method = method("/lookup/method", LOOKUP_METHODS, "GET");
    UrlTemplate url = url("/lookup/url", true);
    List<Header> headers;
    if (definition.field("/lookup/headers").isPresent()) {
      headers = headers("/lookup/headers", Optional.empty());
    } else if (request != null && url != null && url.origin().equals(request.url().origin())) {
      // Same scheme, host and port as the request: the same credentials apply.
      headers = request.headers();
    } else {
      headers = List.of();
    }
    StatusSet found = statuses("/lookup/found", "found", DEFAULT_FOUND);
    StatusSet absent = statuses("/lookup/absent", "absent");
    refuseOverlap("/lookup/", found, absent);
    if (method == null || url == null || headers == null) {
      return Optional.empty();
    }
    return Optional.of(new HttpTool.Lookup(method, url, headers, found, absent));
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
                pointer + "/" + escape(name),
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

  private String method(String pointer, List<String> allowed, String fallback) {
    Optional<String> method = text(pointer);
    if (method.isEmpty()) {
      if (fallback == null && definition.field(pointer).isEmpty()) {
        errors.add(definition.error(pointer, "is required: one of " + String.join(", ", allowed)));
      }
      return fallback;
    }
    String upper = method.get().toUpperCase(Locale.ROOT);
    if (!allowed.contains(upper)) {
      errors.add(
          definition.error(
              pointer,
              "'"
                  + method.get()
                  + "' is not allowed here; use one of "
                  + String.join(", ", allowed)));
      return null;
    }
    return upper;
  }

  private UrlTemplate url(String pointer, boolean lookup) {
    Optional<String> text = text(pointer);
    if (text.isEmpty()) {
      if (definition.field(pointer).isEmpty()) {
        errors.add(definition.error(pointer, "is required: an http:// or https:// URL"));
      }
      return null;
    }
    String url = text.get();
    String lower = url.toLowerCase(Locale.ROOT);
    int schemeEnd = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
    if (schemeEnd < 0) {
      errors.add(definition.error(pointer, "must start with http:// or https://"));
      return null;
    }
    int authorityEnd = schemeEnd;
    while (authorityEnd < url.length() && "/?#".indexOf(url.charAt(authorityEnd)) < 0) {
      authorityEnd++;
    }
    String authority = url.substring(schemeEnd, authorityEnd);
    boolean ok = true;
    if (authority.isEmpty()) {
      errors.add(definition.error(pointer, "has no host"));
      ok = false;
    } else if (authority.contains("{") || authority.contains("}")) {
      errors.add(
          definition.error(
              pointer, "the host and port cannot be templated; only the path and query can"));
      ok = false;
    } else if (authority.contains("@")) {
      errors.add(
          definition.error(
              pointer,
              "must not carry credentials (user:password@host); send them in a header whose"
                  + " value comes from the environment, like \"Basic ${UPSTREAM_CREDENTIALS}\""));
      ok = false;
    }
    if (url.contains("#")) {
      errors.add(definition.error(pointer, "must not have a fragment (#...)"));
      ok = false;
    }
    for (Placeholders.Part part : Placeholders.split(url)) {
      if (part.placeholder() && !placeholderUsable(pointer, part.text(), lookup, true)) {
        ok = false;
      }
    }
    if (!ok) {
      return null;
    }
    try {
      URI sample = new URI(url.replaceAll(Placeholders.PLACEHOLDER.pattern(), "x"));
      if (sample.getHost() == null) {
        errors.add(definition.error(pointer, "has no valid host name"));
        return null;
      }
    } catch (java.net.URISyntaxException e) {
      errors.add(
          definition.error(
              pointer,
              "is not a valid URL ("
                  + e.getReason()
                  + " at index "
                  + e.getIndex()
                  + "); percent-encode literal spaces and braces"));
      return null;
    }
    return new UrlTemplate(url, Placeholders.split(url));
  }

  /**
   * Whether {@code {name}} may be used: it must be a parameter of the schema (or the downstream key
   * in a lookup URL); where the text cannot be built without it, a required one or one with a
   * default.
   */
  private boolean placeholderUsable(
      String pointer, String name, boolean downstreamKeyAllowed, boolean mustBeFilled) {
    if (name.equals(Placeholders.DOWNSTREAM_KEY) && !properties.contains(name)) {
      if (downstreamKeyAllowed) {
        return true;
      }
      errors.add(
          definition.error(
              pointer,
              "{downstreamKey} is only available in lookup.url; the request carries the key in its"
                  + " idempotency header"));
      return false;
    }
    if (!properties.contains(name)) {
      errors.add(
          definition.error(
              pointer,
              "{"
                  + name
                  + "} is not a parameter; the parameters' properties are "
                  + (properties.isEmpty() ? "none" : String.join(", ", properties))));
      return false;
    }
    if (mustBeFilled && !fillable.contains(name)) {
      errors.add(
          definition.error(
              pointer,
              "{"
                  + name
                  + "} must name a required parameter or one with a default: this text cannot be"
                  + " built without it"));
      return false;
    }
    return true;
  }

  private void checkBody(String pointer, JsonNode node) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        checkBody(pointer + "/" + escape(field.getKey()), field.getValue());
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        checkBody(pointer + "/" + i, node.get(i));
      }
    } else if (node.isTextual()) {
      String whole = Placeholders.whole(node.textValue());
      if (whole != null) {
        placeholderUsable(pointer, whole, false, false);
        return;
      }
      for (Placeholders.Part part : Placeholders.split(node.textValue())) {
        if (part.placeholder()) {
          placeholderUsable(pointer, part.text(), false, true);
        }
      }
    }
  }

  private boolean headerNameUsable(String pointer, String name) {
    if (!TOKEN.matcher(name).matches()) {
      errors.add(definition.error(pointer, "'" + name + "' is not a valid header name"));
      return false;
    }
    if (RESTRICTED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
      errors.add(
          definition.error(
              pointer, name + " is set by the HTTP client itself and cannot be configured"));
      return false;
    }
    return true;
  }

  private List<Header> headers(String pointer, Optional<String> idempotencyHeader) {
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      return List.of();
    }
    if (!node.get().isObject()) {
      errors.add(definition.error(pointer, "must be a mapping of header names to values"));
      return null;
    }
    List<Header> headers = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    boolean ok = true;
    for (Map.Entry<String, JsonNode> field : node.get().properties()) {
      String name = field.getKey();
      String at = pointer + "/" + escape(name);
      if (!headerNameUsable(at, name)) {
        ok = false;
        continue;
      }
      if (idempotencyHeader.isPresent() && idempotencyHeader.get().equalsIgnoreCase(name)) {
        errors.add(
            definition.error(
                at,
                name
                    + " is the idempotency header: the tool sets it to the operation's downstream"
                    + " key on every call"));
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
      String value = headerValue(at, name, field.getValue().textValue());
      if (value == null) {
        ok = false;
      } else {
        headers.add(new Header(name, value));
      }
    }
    return ok ? headers : null;
  }

  /** The value with its environment references resolved; null after an error. Never echoes it. */
  private String headerValue(String pointer, String name, String written) {
    if (EnvironmentValues.sensitive(name) && !EnvironmentValues.fromEnvironment(written)) {
      errors.add(
          definition.error(
              pointer,
              "looks like an inline secret: the value of "
                  + name
                  + " must come from the environment, like \"Bearer ${BILLING_TOKEN}\" or"
                  + " \"${API_KEY}\"; never write the secret itself into the tools file"));
      return null;
    }
    return EnvironmentValues.substitute(definition, errors, pointer, written);
  }

  private StatusSet statuses(String pointer, String name, String... defaults) {
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      return StatusSet.defaults(name, defaults);
    }
    if (!node.get().isArray()) {
      errors.add(definition.error(pointer, "must be a list of statuses, like [201] or [2xx, 409]"));
      return StatusSet.defaults(name);
    }
    BitSet members = new BitSet();
    List<String> written = new ArrayList<>();
    for (int i = 0; i < node.get().size(); i++) {
      JsonNode entry = node.get().get(i);
      String text = entry.isIntegralNumber() || entry.isTextual() ? entry.asText() : "";
      if (!StatusSet.add(members, text.toLowerCase(Locale.ROOT))) {
        errors.add(
            definition.error(
                pointer + "/" + i,
                "'"
                    + entry.asText()
                    + "' is not a status from 200 to 599 nor a class 2xx, 3xx, 4xx or 5xx"));
      } else {
        written.add(text.toLowerCase(Locale.ROOT));
      }
    }
    return new StatusSet(name, written, members, true);
  }

  private void refuseOverlap(String base, StatusSet a, StatusSet b) {
    BitSet both = (BitSet) a.members().clone();
    both.and(b.members());
    if (both.isEmpty()) {
      return;
    }
    List<String> shared = new ArrayList<>();
    for (int s = both.nextSetBit(0); s >= 0 && shared.size() < 5; s = both.nextSetBit(s + 1)) {
      shared.add(Integer.toString(s));
    }
    String pointer = base + (b.explicit() || !a.explicit() ? b.name() : a.name());
    errors.add(
        definition.error(
            pointer,
            (shared.size() == 1 ? "status " : "statuses ")
                + String.join(", ", shared)
                + (both.cardinality() > shared.size() ? "..." : "")
                + " would be in both "
                + a.describe()
                + " and "
                + b.describe()
                + "; every status belongs to one class at most"));
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

  private static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
