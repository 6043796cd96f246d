package dev.toolledger.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.engine.ResolveOutcome;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.ops.Attention;
import dev.toolledger.jdbc.ops.OperationCatalog;
import dev.toolledger.jdbc.ops.OperationFilter;
import dev.toolledger.jdbc.ops.OperationSummary;
import dev.toolledger.jdbc.ops.StateCount;
import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.AuthorizationHeader;
import dev.toolledger.server.auth.OperatorAuthenticator;
import dev.toolledger.server.auth.OperatorAuthenticator.Operator;
import dev.toolledger.server.http.ResolutionJson;
import dev.toolledger.server.operations.OperationJson;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations console at {@value #PATH}: a static page (HTML, one script, one style sheet) and
 * JSON endpoints under {@value #API} for operators of every tenant. The page holds no data and is
 * served to anyone; every endpoint wants the operator token in {@code Authorization: Bearer}, which
 * the page keeps in the browser tab's session storage and sends itself (no cookie, so no request
 * forged from another site carries it).
 *
 * <p>A key travels to the endpoints in the {@value #KEY_HEADER} header, never in a URL, and a URL
 * with a {@code key} parameter is refused. Log lines name it by the ledger's {@link
 * dev.toolledger.core.identity.KeyHasher}, which an operation's JSON also gives as {@code logKey}.
 *
 * <p>Keys, tool names, causes and response bodies are untrusted text: the page only ever puts them
 * into the document as text nodes, and a Content-Security-Policy allows no script but its own file.
 * Resolutions go through {@link LedgerEngine#resolve} with the operator as the actor in the
 * operation's history.
 */
public final class ConsoleServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleServlet.class);

  /** Where the console is served. */
  public static final String PATH = "/console";

  /** Where its JSON endpoints are. */
  public static final String API = PATH + "/api";

  /**
   * The request header that carries an operation key to the JSON endpoints. Never the URL: URLs end
   * up in the access logs of proxies and balancers, where a guessable key could be read.
   */
  public static final String KEY_HEADER = "Operation-Key";

  private static final int LIST_LIMIT = 50;
  private static final int MAX_BODY = 64 * 1024;
  private static final String RESOURCES = "/dev/toolledger/server/console/";
  private static final Map<String, String> FILES =
      Map.of(
          "/", "index.html",
          "/console.js", "console.js",
          "/console.css", "console.css");
  private static final String SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private final transient LedgerEngine engine;
  private final transient JdbcLedgerStore store;
  private final transient OperationCatalog catalog;
  private final transient OperatorAuthenticator operators;
  private final transient Clock clock;
  private final Duration staleAfter;

  public ConsoleServlet(
      LedgerEngine engine,
      JdbcLedgerStore store,
      OperatorAuthenticator operators,
      Clock clock,
      Duration staleAfter) {
    this.engine = engine;
    this.store = store;
    this.catalog = OperationCatalog.of(store);
    this.operators = operators;
    this.clock = clock;
    this.staleAfter = staleAfter;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = request.getRequestURI();
    response.setHeader("Content-Security-Policy", SECURITY_POLICY);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("X-Frame-Options", "DENY");
    response.setHeader("Cache-Control", "no-store");
    if (path.equals(PATH)) {
      response.setStatus(HttpServletResponse.SC_MOVED_PERMANENTLY);
      response.setHeader("Location", PATH + "/");
      return;
    }
    if (path.startsWith(API + "/")) {
      api(path.substring(API.length()), request, response);
      return;
    }
    String file = FILES.get(path.substring(PATH.length()));
    if (file == null || !"GET".equals(request.getMethod())) {
      problem(response, Problem.of(ProblemType.NOT_FOUND, "no console resource here"));
      return;
    }
    staticFile(file, response);
  }

  private void api(String route, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Optional<Problem> several = AuthorizationHeader.several(request);
    if (several.isPresent()) {
      problem(response, several.get());
      return;
    }
    Optional<Operator> operator = operators.authenticate(request.getHeader("Authorization"));
    if (operator.isEmpty()) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"toolledger-operator\"");
      problem(
          response,
          Problem.of(
              ProblemType.UNAUTHORIZED,
              operators.configured()
                  ? "sign in with an operator token: the node's TOOLLEDGER_OPERATOR_TOKEN or one"
                      + " from 'toolledger tokens create --operator'"
                  : "no operator is set up on this node: issue a token with 'toolledger tokens"
                      + " create --operator'"));
      return;
    }
    Map<String, String> query = query(request.getQueryString());
    if (query.containsKey("key")) {
      problem(
          response,
          Problem.of(
              ProblemType.INVALID_PARAMETERS,
              "send the operation key in the "
                  + KEY_HEADER
                  + " header, not in the URL: URLs end up in access logs"));
      return;
    }
    try {
      Optional<OperationKey> key =
          Optional.ofNullable(request.getHeader(KEY_HEADER))
              .filter(v -> !v.isBlank())
              // Verbatim, not as a Structured Field string: the page sends the key as it is.
              .map(OperationKey::of);
      switch (route) {
        case "/summary" -> {
          if (method(request, response, "GET")) {
            json(response, 200, summary());
          }
        }
        case "/operations" -> {
          if (method(request, response, "GET")) {
            json(response, 200, operations(query, key));
          }
        }
        case "/operation" -> {
          if (method(request, response, "GET")) {
            operation(query, required(key), response);
          }
        }
        case "/resolve" -> {
          if (method(request, response, "POST")) {
            resolve(operator.get(), query, required(key), request, response);
          }
        }
        default -> problem(response, Problem.of(ProblemType.NOT_FOUND, "no such console API"));
      }
    } catch (InvalidOperationKeyException | IllegalArgumentException e) {
      problem(response, Problem.of(ProblemType.INVALID_PARAMETERS, e.getMessage()));
    }
  }

  private ObjectNode summary() {
    ObjectNode root = Json.object();
    ArrayNode counts = root.putArray("counts");
    for (StateCount count : catalog.countByStateAndTool()) {
      counts
          .addObject()
          .put("state", count.state().name())
          .put("tool", count.tool().orElse(null))
          .put("count", count.count());
    }
    Instant staleBefore = clock.instant().minus(staleAfter);
    Attention attention = catalog.attention(staleBefore);
    root.putObject("attention")
        .put("unknown", attention.unknown())
        .put("staleInProgress", attention.staleInProgress())
        .put("outboxPending", attention.outboxPending())
        .put("outboxDead", attention.outboxDead());
    root.put("staleAfterSeconds", staleAfter.toSeconds());
    root.set(
        "unknown",
        summaries(
            catalog.list(
                OperationFilter.builder()
                    .state(OperationState.UNKNOWN)
                    .oldestFirst(true)
                    .limit(LIST_LIMIT)
                    .build())));
    root.set(
        "stale",
        summaries(
            catalog.list(
                OperationFilter.builder()
                    .state(OperationState.IN_PROGRESS)
                    .createdBefore(staleBefore)
                    .oldestFirst(true)
                    .limit(LIST_LIMIT)
                    .build())));
    ArrayNode dead = root.putArray("dead");
    for (OutboxEvent event : store.listEvents(OutboxState.DEAD, LIST_LIMIT)) {
      dead.addObject()
          .put("id", event.id())
          .put("tenant", event.tenant().value())
          .put("topic", event.topic())
          .put("aggregate", event.aggregate())
          .put("attempts", event.attempts())
          .put("lastError", event.lastError().orElse(null))
          .put("createdAt", event.createdAt().toString());
    }
    return root;
  }

  private ObjectNode operations(Map<String, String> query, Optional<OperationKey> key) {
    OperationFilter.Builder filter = OperationFilter.builder().limit(LIST_LIMIT);
    String state = query.getOrDefault("state", "");
    if (!state.isEmpty()) {
      filter.state(OperationState.valueOf(state.toUpperCase(Locale.ROOT)));
    }
    optional(query, "tenant").map(TenantId::of).ifPresent(filter::tenant);
    optional(query, "tool").ifPresent(filter::tool);
    key.ifPresent(filter::key);
    ObjectNode root = Json.object();
    root.set("operations", summaries(catalog.list(filter.build())));
    return root;
  }

  private void operation(Map<String, String> query, OperationKey key, HttpServletResponse response)
      throws IOException {
    TenantId tenant = TenantId.of(required(query, "tenant"));
    Optional<OperationRecord> record = engine.lookup(tenant, key);
    if (record.isEmpty()) {
      problem(response, Problem.of(ProblemType.NOT_FOUND, "this tenant has no such operation"));
      return;
    }
    json(response, 200, detail(record.get(), tenant, key));
  }

  /** An operation as the page shows it, with the hash its log lines carry. */
  private ObjectNode detail(OperationRecord record, TenantId tenant, OperationKey key) {
    ObjectNode json = OperationJson.of(record, engine.history(tenant, key));
    json.put("tenant", tenant.value());
    json.put("logKey", engine.keyHasher().hash(tenant, key));
    return json;
  }

  private void resolve(
      Operator operator,
      Map<String, String> query,
      OperationKey key,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    TenantId tenant = TenantId.of(required(query, "tenant"));
    byte[] body;
    try (InputStream in = request.getInputStream()) {
      body = in.readNBytes(MAX_BODY + 1);
    }
    if (body.length > MAX_BODY) {
      problem(response, Problem.of(ProblemType.PAYLOAD_TOO_LARGE, "the body is too large"));
      return;
    }
    Resolution resolution;
    try {
      resolution = ResolutionJson.parse(body);
    } catch (MalformedJsonException e) {
      problem(response, Problem.of(ProblemType.MALFORMED_JSON, e.getMessage()));
      return;
    }
    if (resolution instanceof Resolution.Inquiry) {
      throw new IllegalArgumentException(
          "name the resolution (COMPLETED or NOT_EXECUTED) and give a reason");
    }
    ResolveOutcome outcome = engine.resolve(tenant, key, resolution, operator.actor());
    LOG.atInfo()
        .addKeyValue("actor", operator.actor())
        .addKeyValue("tenant", tenant.value())
        .addKeyValue("key", engine.keyHasher().hash(tenant, key))
        .addKeyValue("outcome", outcome.getClass().getSimpleName())
        .log("operator resolution");
    if (outcome instanceof ResolveOutcome.Resolved resolved) {
      json(response, 200, detail(resolved.record(), tenant, key));
    } else if (outcome instanceof ResolveOutcome.NotResolvable notResolvable) {
      problem(
          response,
          Problem.of(
              ProblemType.NOT_RESOLVABLE,
              "only an UNKNOWN operation can be resolved; this one is "
                  + notResolvable.record().state()));
    } else {
      problem(response, Problem.of(ProblemType.NOT_FOUND, "this tenant has no such operation"));
    }
  }

  private static ArrayNode summaries(List<OperationSummary> rows) {
    ArrayNode list = Json.mapper().createArrayNode();
    for (OperationSummary row : rows) {
      ObjectNode item = list.addObject();
      item.put("tenant", row.tenant().value());
      item.put("key", row.key().value());
      item.put("tool", row.tool().orElse(null));
      item.put("state", row.state().name());
      if (row.status().isPresent()) {
        item.put("status", row.status().get());
      } else {
        item.putNull("status");
      }
      item.put("createdAt", row.createdAt().toString());
      item.put("completedAt", row.completedAt().map(Instant::toString).orElse(null));
      item.put("owner", row.owner().orElse(null));
      item.put("leaseUntil", row.leaseUntil().map(Instant::toString).orElse(null));
      item.put("fence", row.fence());
    }
    return list;
  }

  private void staticFile(String file, HttpServletResponse response) throws IOException {
    byte[] content;
    try (InputStream in = ConsoleServlet.class.getResourceAsStream(RESOURCES + file)) {
      if (in == null) {
        problem(response, Problem.of(ProblemType.NOT_FOUND, "no console resource here"));
        return;
      }
      content = in.readAllBytes();
    }
    String type =
        file.endsWith(".html")
            ? "text/html; charset=utf-8"
            : file.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
    response.setStatus(200);
    response.setContentType(type);
    response.setContentLength(content.length);
    response.getOutputStream().write(content);
  }

  private static boolean method(
      HttpServletRequest request, HttpServletResponse response, String allowed) throws IOException {
    if (allowed.equals(request.getMethod())) {
      return true;
    }
    response.setHeader("Allow", allowed);
    problem(
        response,
        Problem.of(ProblemType.METHOD_NOT_ALLOWED, "use " + allowed + " on this resource"));
    return false;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw == null) {
      return params;
    }
    for (String pair : raw.split("&", -1)) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        params.putIfAbsent(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  private static Optional<String> optional(Map<String, String> query, String name) {
    return Optional.ofNullable(query.get(name)).filter(v -> !v.isEmpty());
  }

  private static OperationKey required(Optional<OperationKey> key) {
    return key.orElseThrow(
        () ->
            new IllegalArgumentException(
                "give the operation key in the " + KEY_HEADER + " header"));
  }

  private static String required(Map<String, String> query, String name) {
    return optional(query, name)
        .orElseThrow(() -> new IllegalArgumentException("give the " + name));
  }

  private static void json(HttpServletResponse response, int status, JsonNode body)
      throws IOException {
    write(response, status, "application/json", Json.write(body));
  }

  private static void problem(HttpServletResponse response, Problem problem) throws IOException {
    write(response, problem.status(), "application/problem+json", Json.write(problem.toJson()));
  }

  private static void write(HttpServletResponse response, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType(type);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }
}
