package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.FieldReader;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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

  private final Definition definition;
  private final FieldReader fields;
  private final List<DefinitionException> errors;

  private HttpToolReader(Definition definition) {
    this.definition = definition;
    this.fields = new FieldReader(definition);
    this.errors = fields.errors();
  }

  static HttpTool read(Definition definition) throws DefinitionException {
    return new HttpToolReader(definition).read();
  }

  private HttpTool read() throws DefinitionException {
    ToolDescriptor descriptor = null;
    fields.refuseUnknownFields(FIELDS);
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
    Duration lease = fields.duration("/lease", DEFAULT_LEASE);
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
    fields.throwIfAny();
    Set<String> inPath = new LinkedHashSet<>(request.url().pathPlaceholders());
    lookup.ifPresent(l -> inPath.addAll(l.url().pathPlaceholders()));
    inPath.retainAll(fields.properties());
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
    Optional<JsonNode> node = fields.mapping("/request", true, REQUEST_FIELDS);
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
    Duration timeout = fields.duration("/request/timeout", DEFAULT_TIMEOUT);
    Duration connectTimeout = fields.duration("/request/connect-timeout", DEFAULT_CONNECT_TIMEOUT);
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
    Optional<String> name = fields.text(pointer);
    if (name.isEmpty()) {
      return Optional.of(DEFAULT_IDEMPOTENCY_HEADER);
    }
    if (name.get().equalsIgnoreCase(NO_IDEMPOTENCY_HEADER)) {
      return Optional.empty();
    }
    if (!fields.headerNameUsable(pointer, name.get(), RESTRICTED_HEADERS, "HTTP client")) {
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
    fields.mapping("/outcomes", false, OUTCOME_FIELDS);
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
    Optional<JsonNode> node = fields.mapping("/lookup", false, LOOKUP_FIELDS);
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

  private String method(String pointer, List<String> allowed, String fallback) {
    Optional<String> method = fields.text(pointer);
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
    Optional<String> text = fields.text(pointer);
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
    if (name.equals(Placeholders.DOWNSTREAM_KEY) && !fields.properties().contains(name)) {
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
    if (!fields.properties().contains(name)) {
      errors.add(
          definition.error(
              pointer,
              "{"
                  + name
                  + "} is not a parameter; the parameters' properties are "
                  + fields.propertiesOrNone()));
      return false;
    }
    return !mustBeFilled || fields.fillable(pointer, name);
  }

  private void checkBody(String pointer, JsonNode node) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        checkBody(pointer + "/" + FieldReader.escape(field.getKey()), field.getValue());
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

  private List<Header> headers(String pointer, Optional<String> idempotencyHeader) {
    Map<String, String> headers =
        fields.headers(
            pointer,
            RESTRICTED_HEADERS,
            "HTTP client",
            "\"Bearer ${BILLING_TOKEN}\" or \"${API_KEY}\"",
            name ->
                idempotencyHeader.isPresent() && idempotencyHeader.get().equalsIgnoreCase(name)
                    ? name
                        + " is the idempotency header: the tool sets it to the operation's"
                        + " downstream key on every call"
                    : null);
    if (headers == null) {
      return null;
    }
    List<Header> list = new ArrayList<>();
    headers.forEach((name, value) -> list.add(new Header(name, value)));
    return list;
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
}
