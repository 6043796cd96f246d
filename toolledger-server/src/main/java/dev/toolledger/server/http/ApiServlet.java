package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.engine.ResolveOutcome;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.protocol.StoredResponse;
import dev.toolledger.server.auth.AuthorizationHeader;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.observe.LogSafety;
import dev.toolledger.server.operations.OperationJson;
import dev.toolledger.server.operations.OperationProblems;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API. Every error is an RFC 9457 problem document with a stable type; every recorded
 * outcome carries {@code Idempotent-Replayed: true|false}, so a client can tell an execution from a
 * replay and a recorded outcome from an error of the ledger itself.
 *
 * <p>Authorization runs on every request, before anything about a key is looked at, so that its
 * answer never depends on whether the key exists: a tool call (or replay) needs the tool's scope, a
 * lookup {@code read}, an explicit resolution {@code resolve}. Operator tokens act for no tenant
 * and are refused here.
 */
public final class ApiServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ApiServlet.class);

  static final String REPLAYED_HEADER = "Idempotent-Replayed";
  private static final String TOOLS = "/v1/tools";
  private static final String TOOLS_PREFIX = "/v1/tools/";
  private static final String OPERATIONS_PREFIX = "/v1/operations/";
  private static final String RESOLVE_SUFFIX = "/resolve";

  private final transient LedgerEngine engine;
  private final transient Tokens tokens;
  private final transient Map<String, ReadEndpoint> reads;
  private final transient HealthCheck health;
  private final int maxRequestBytes;

  public ApiServlet(
      LedgerEngine engine,
      Tokens tokens,
      List<ReadEndpoint> reads,
      HealthCheck health,
      int maxRequestBytes) {
    this.engine = engine;
    this.tokens = tokens;
    this.reads =
        reads.stream()
            .collect(Collectors.toUnmodifiableMap(ReadEndpoint::path, Function.identity()));
    this.health = health;
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = pathWithin(request);
    String method = request.getMethod();
    try {
      if (path.equals("/health")) {
        if (requireMethod(method, "GET", response)) {
          health(response);
        }
        return;
      }
      if (path.equals(OpenApiDocument.PATH) && request.getHeader("Authorization") == null) {
        if (requireMethod(method, "GET", response)) {
          json(response, 200, OpenApiDocument.of(List.of(), List.of()));
        }
        return;
      }
      Optional<Problem> several = AuthorizationHeader.several(request);
      if (several.isPresent()) {
        problem(response, several.get());
        return;
      }
      Optional<Principal> principal = authenticate(request);
      if (principal.isEmpty()) {
        response.setHeader("WWW-Authenticate", "Bearer realm=\"toolledger\"");
        problem(
            response,
            Problem.of(
                ProblemType.UNAUTHORIZED,
                "send 'Authorization: Bearer <token>' with a token from 'toolledger tokens"
                    + " create'"));
        return;
      }
      if (principal.get().isOperator()) {
        problem(
            response,
            Problem.of(
                ProblemType.FORBIDDEN,
                "an operator token acts for no tenant and is not accepted by the tenant API; use"
                    + " a tenant's token here"));
        return;
      }
      if (path.startsWith(TOOLS_PREFIX)) {
        if (requireMethod(method, "POST", response)) {
          callTool(
              principal.get(),
              Paths.decodeSegment(path.substring(TOOLS_PREFIX.length())),
              request,
              response);
        }
      } else if (path.equals(TOOLS)) {
        if (requireMethod(method, "GET", response)) {
          listTools(principal.get(), response);
        }
      } else if (path.startsWith(OPERATIONS_PREFIX)) {
        // The key is one path segment; a key holding '/' must be sent percent-encoded.
        String rest = path.substring(OPERATIONS_PREFIX.length());
        int slash = rest.indexOf('/');
        if (slash < 0) {
          if (requireMethod(method, "GET", response)
              && allowed(principal.get().mayRead(), "read", principal.get(), response)) {
            lookup(principal.get(), rest, response);
          }
        } else if (rest.substring(slash).equals(RESOLVE_SUFFIX)) {
          if (requireMethod(method, "POST", response)) {
            resolve(principal.get(), rest.substring(0, slash), request, response);
          }
        } else {
          problem(response, Problem.of(ProblemType.NOT_FOUND, "no resource at " + path));
        }
      } else if (path.equals(OpenApiDocument.PATH)) {
        if (requireMethod(method, "GET", response)) {
          openApi(principal.get(), response);
        }
      } else if (reads.containsKey(path)) {
        if (requireMethod(method, "GET", response)
            && allowed(principal.get().mayRead(), "read", principal.get(), response)) {
          read(reads.get(path), principal.get(), request, response);
        }
      } else {
        problem(response, Problem.of(ProblemType.NOT_FOUND, "no resource at " + path));
      }
    } catch (ToolExecutionException e) {
      LOG.atError()
          .addKeyValue("error", ProblemType.TOOL_FAILED.slug())
          .addKeyValue("tool", e.tool())
          .setCause(LogSafety.withoutMessages(e.getCause()))
          .log("the tool failed; its transaction was rolled back");
      problem(
          response,
          Problem.of(
              ProblemType.TOOL_FAILED,
              "the tool failed and its transaction was rolled back; nothing was recorded, so a"
                  + " retry with the same key executes it afresh"));
    } catch (TransientStoreException e) {
      LOG.atWarn()
          .addKeyValue("error", ProblemType.STORE_BUSY.slug())
          .log("the ledger's database is busy: {}", e.getMessage());
      response.setHeader("Retry-After", "1");
      problem(response, Problem.of(ProblemType.STORE_BUSY, "the ledger is busy; retry shortly"));
    } catch (StoreUnavailableException e) {
      LOG.atError()
          .addKeyValue("error", ProblemType.STORE_UNAVAILABLE.slug())
          .log("the ledger's storage failed: {}", e.getMessage());
      response.setHeader("Retry-After", STORE_UNAVAILABLE_RETRY_AFTER);
      problem(response, Problem.of(ProblemType.STORE_UNAVAILABLE, STORE_UNAVAILABLE_DETAIL));
    } catch (RuntimeException e) {
      LOG.atError()
          .addKeyValue("error", ProblemType.INTERNAL.slug())
          .setCause(LogSafety.withoutMessages(e))
          .log("unexpected failure on {} {}", printable(method), Paths.template(path));
      problem(
          response,
          Problem.of(
              ProblemType.INTERNAL,
              "an unexpected error occurred; if this was a tool call, look its key up before"
                  + " retrying"));
    }
  }

  private static final String STORE_UNAVAILABLE_RETRY_AFTER = "5";

  /**
   * The request's path below where the API is mounted, still percent-encoded (an operation key may
   * hold an encoded '/'): the whole URI on ToolLedger's own server, the part after {@code
   * /toolledger} when an application maps the servlet to {@code /toolledger/*}.
   */
  private static String pathWithin(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String mount = request.getContextPath() + request.getServletPath();
    return !mount.isEmpty() && uri.startsWith(mount) ? uri.substring(mount.length()) : uri;
  }

  /** Public: no path, no driver message (those go to the log). */
  static final String STORE_UNAVAILABLE_DETAIL =
      "the ledger's storage failed and nothing was recorded; retry with the same key once /health"
          + " answers ok again";

  private Optional<Principal> authenticate(HttpServletRequest request) {
    return tokens.authenticateHeader(request.getHeader("Authorization"));
  }

  private void callTool(
      Principal principal,
      String toolName,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    long started = System.nanoTime();
    // Before the tool's existence, so that a tool outside the token's scopes is not revealed, and
    // before the key, so that a replay needs the scope as much as a first call does.
    if (!principal.mayCall(toolName)) {
      rejected(principal, toolName, ProblemType.FORBIDDEN, started);
      problem(
          response,
          Problem.of(
              ProblemType.FORBIDDEN,
              "this token may not call '"
                  + printable(toolName)
                  + "' (its scopes: "
                  + principal.scopes()
                  + "); nothing was recorded"));
      return;
    }
    Optional<RegisteredTool> tool = engine.tools().find(toolName);
    if (tool.isEmpty()) {
      rejected(principal, toolName, ProblemType.UNKNOWN_TOOL, started);
      problem(
          response,
          Problem.of(
              ProblemType.UNKNOWN_TOOL,
              "no tool is named '" + printable(toolName) + "'; GET /v1/tools lists them"));
      return;
    }
    List<String> keyHeaders = Collections.list(request.getHeaders("Idempotency-Key"));
    if (keyHeaders.isEmpty()) {
      rejected(principal, toolName, ProblemType.MISSING_KEY, started);
      problem(
          response,
          Problem.of(
              ProblemType.MISSING_KEY,
              "send the action's operation key in the Idempotency-Key header: the same key on"
                  + " every retry of one action, a new key for every new action"));
      return;
    }
    OperationKey key;
    try {
      if (keyHeaders.size() > 1) {
        throw new InvalidOperationKeyException("send exactly one Idempotency-Key header");
      }
      key = OperationKey.fromHeader(keyHeaders.get(0));
    } catch (InvalidOperationKeyException e) {
      rejected(principal, toolName, ProblemType.INVALID_KEY, started);
      problem(response, Problem.of(ProblemType.INVALID_KEY, e.getMessage()));
      return;
    }
    if (!isJson(request.getContentType())) {
      rejected(principal, toolName, ProblemType.UNSUPPORTED_MEDIA_TYPE, started);
      problem(
          response,
          Problem.of(
              ProblemType.UNSUPPORTED_MEDIA_TYPE,
              "send the parameters as a JSON object with 'Content-Type: application/json'"));
      return;
    }
    byte[] body = BoundedBody.read(request, maxRequestBytes);
    if (body == null) {
      rejected(principal, toolName, ProblemType.PAYLOAD_TOO_LARGE, started);
      problem(
          response,
          Problem.of(
              ProblemType.PAYLOAD_TOO_LARGE,
              "the body is larger than " + maxRequestBytes + " bytes"));
      return;
    }
    JsonNode parameters;
    try {
      parameters = Json.parse(body);
    } catch (MalformedJsonException e) {
      rejected(principal, toolName, ProblemType.MALFORMED_JSON, started);
      problem(response, Problem.of(ProblemType.MALFORMED_JSON, e.getMessage()));
      return;
    }
    Invocation invocation =
        new Invocation(
            principal.tenant(),
            key,
            toolName,
            parameters,
            preferredWait(request.getHeaders("Prefer")));
    respond(engine.execute(invocation), key, response);
  }

  private void respond(ExecutionOutcome outcome, OperationKey key, HttpServletResponse response)
      throws IOException {
    if (outcome instanceof ExecutionOutcome.Executed executed) {
      recorded(response, executed.response(), false);
    } else if (outcome instanceof ExecutionOutcome.Replayed replayed) {
      recorded(response, replayed.response(), true);
    } else if (outcome instanceof ExecutionOutcome.KeyReused reused) {
      problem(
          response,
          Problem.of(
              ProblemType.KEY_REUSED,
              "this key belongs to an earlier call of "
                  + reused.recordedTool()
                  + " with other parameters; a retry must send the same parameters, a new action"
                  + " needs a new key"));
    } else if (outcome instanceof ExecutionOutcome.InProgress inProgress) {
      response.setHeader("Retry-After", Long.toString(inProgress.retryAfter().toSeconds()));
      problem(
          response,
          Problem.of(
              ProblemType.IN_PROGRESS,
              "another request with this key is still executing; retry with the same key after"
                  + " Retry-After seconds to get its outcome"));
    } else if (outcome instanceof ExecutionOutcome.OutcomeUnknown) {
      problem(
          response,
          Problem.of(
              ProblemType.OUTCOME_UNKNOWN,
              "the outcome of this operation is unknown: its effect may or may not have"
                  + " happened; it will not be executed again; look it up with GET"
                  + " /v1/operations/{key} or have an operator resolve it"));
    } else if (outcome instanceof ExecutionOutcome.NotExecuted) {
      problem(
          response,
          Problem.of(
              ProblemType.NOT_EXECUTED,
              "this key was resolved as not executed and is fenced; it will not execute. A new"
                  + " action needs a new key"));
    } else if (outcome instanceof ExecutionOutcome.InvalidParameters invalid) {
      ArrayNode errors = Json.mapper().createArrayNode();
      for (Violation violation : invalid.violations()) {
        errors.addObject().put("field", violation.field()).put("message", violation.message());
      }
      String fields =
          invalid.violations().stream()
              .map(v -> v.field().isEmpty() ? "(body)" : v.field())
              .distinct()
              .collect(Collectors.joining(", "));
      problem(
          response,
          Problem.of(
                  ProblemType.INVALID_PARAMETERS,
                  "the parameters do not match the tool's schema at "
                      + fields
                      + "; nothing was"
                      + " recorded, so the same key may be used with corrected parameters")
              .with("errors", errors));
    } else if (outcome instanceof ExecutionOutcome.UnknownTool unknown) {
      problem(
          response,
          Problem.of(
              ProblemType.UNKNOWN_TOOL, "no tool is named '" + printable(unknown.tool()) + "'"));
    } else if (outcome instanceof ExecutionOutcome.ToolUnavailable unavailable) {
      response.setHeader("Retry-After", Long.toString(unavailable.retryAfter().toSeconds()));
      problem(
          response,
          Problem.of(
              ProblemType.TOOL_UNAVAILABLE,
              "the tool reported that nothing happened ("
                  + unavailable.reason()
                  + "); nothing was recorded, so a retry with the same key executes it afresh"));
    } else if (outcome instanceof ExecutionOutcome.Expired expired) {
      problem(response, OperationProblems.expired(expired.tombstone()));
    } else if (outcome instanceof ExecutionOutcome.RateLimited limited) {
      response.setHeader("Retry-After", Long.toString(limited.retryAfter().toSeconds()));
      problem(
          response,
          Problem.of(
              ProblemType.RATE_LIMITED,
              "this tenant started more new operations than its rate allows; nothing was"
                  + " recorded, so the same request with the same key may be sent again after"
                  + " Retry-After seconds (replays and lookups are not limited)"));
    } else if (outcome instanceof ExecutionOutcome.ResponseTooLarge tooLarge) {
      problem(
          response,
          Problem.of(
              ProblemType.RESPONSE_TOO_LARGE,
              "the tool's response was "
                  + tooLarge.bytes()
                  + " bytes, more than the "
                  + tooLarge.limit()
                  + " bytes the ledger records; its transaction was rolled back and nothing was"
                  + " recorded. The same request will most likely fail the same way"));
    } else if (outcome instanceof ExecutionOutcome.Busy busy) {
      response.setHeader("Retry-After", Long.toString(busy.retryAfter().toSeconds()));
      problem(
          response,
          Problem.of(
              ProblemType.STORE_BUSY,
              "the ledger stayed busy and nothing was recorded; retry with the same key after"
                  + " Retry-After seconds"));
    } else {
      throw new IllegalStateException("unmapped outcome " + outcome.kind() + " for " + key);
    }
  }

  private void lookup(Principal principal, String rawKey, HttpServletResponse response)
      throws IOException {
    OperationKey key;
    try {
      key = OperationKey.of(Paths.decodeSegment(rawKey));
    } catch (InvalidOperationKeyException | IllegalArgumentException e) {
      problem(response, Problem.of(ProblemType.INVALID_KEY, e.getMessage()));
      return;
    }
    Optional<OperationRecord> record = engine.lookup(principal.tenant(), key);
    if (record.isEmpty()) {
      Optional<Tombstone> tombstone = engine.tombstone(principal.tenant(), key);
      if (tombstone.isPresent()) {
        problem(response, OperationProblems.expired(tombstone.get()));
        return;
      }
      // The same answer for a key never seen and a key of another tenant: a key grants nothing.
      problem(response, Problem.of(ProblemType.NOT_FOUND, "no operation with this key"));
      return;
    }
    json(response, 200, OperationJson.of(record.get(), engine.history(principal.tenant(), key)));
  }

  private void resolve(
      Principal principal, String rawKey, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!principal.mayGiveUp() && !principal.mayResolve()) {
      allowed(false, "read and a tools: scope, or resolve", principal, response);
      return;
    }
    byte[] body = BoundedBody.read(request, maxRequestBytes);
    if (body == null) {
      problem(
          response,
          Problem.of(
              ProblemType.PAYLOAD_TOO_LARGE,
              "the body is larger than " + maxRequestBytes + " bytes"));
      return;
    }
    // The scope a request needs follows from the body's shape alone, so that it is checked before
    // the key or the resolution is validated: a token without 'resolve' learns nothing about what
    // a resolution would need, and every body that is not an inquiry asks for a resolution.
    if (ResolutionJson.isInquiry(body)
        ? !allowed(principal.mayGiveUp(), "read and a tools: scope", principal, response)
        : !allowed(principal.mayResolve(), "resolve", principal, response)) {
      return;
    }
    OperationKey key;
    try {
      key = OperationKey.of(Paths.decodeSegment(rawKey));
    } catch (InvalidOperationKeyException | IllegalArgumentException e) {
      problem(response, Problem.of(ProblemType.INVALID_KEY, e.getMessage()));
      return;
    }
    Resolution resolution;
    try {
      resolution = ResolutionJson.parse(body);
    } catch (MalformedJsonException e) {
      problem(response, Problem.of(ProblemType.MALFORMED_JSON, e.getMessage()));
      return;
    } catch (IllegalArgumentException e) {
      problem(response, Problem.of(ProblemType.INVALID_PARAMETERS, e.getMessage()));
      return;
    }
    ResolveOutcome outcome =
        engine.resolve(principal.tenant(), key, resolution, "token:" + principal.tokenId());
    if (outcome instanceof ResolveOutcome.NothingToResolve) {
      problem(response, Problem.of(ProblemType.NOT_FOUND, "no operation with this key"));
      return;
    }
    if (outcome instanceof ResolveOutcome.Expired expired) {
      problem(response, OperationProblems.expired(expired.tombstone()));
      return;
    }
    OperationRecord record;
    String result;
    if (outcome instanceof ResolveOutcome.Fenced fenced) {
      record = fenced.record();
      result = "fenced";
    } else if (outcome instanceof ResolveOutcome.Current current) {
      record = current.record();
      result = "current";
    } else if (outcome instanceof ResolveOutcome.Resolved resolved) {
      record = resolved.record();
      result = "resolved";
    } else {
      OperationRecord current = ((ResolveOutcome.NotResolvable) outcome).record();
      problem(
          response,
          Problem.of(
                  ProblemType.NOT_RESOLVABLE,
                  "only an UNKNOWN operation can be resolved explicitly; this one is "
                      + current.state())
              .with("state", Json.mapper().getNodeFactory().textNode(current.state().name())));
      return;
    }
    ObjectNode json = OperationJson.of(record, engine.history(principal.tenant(), key));
    json.put("resolution", result);
    json(response, 200, json);
  }

  /** The tools this token may call; the others are not shown. */
  private void listTools(Principal principal, HttpServletResponse response) throws IOException {
    ObjectNode root = Json.object();
    ArrayNode list = root.putArray("tools");
    for (RegisteredTool tool : engine.tools().all()) {
      if (!principal.mayCall(tool.descriptor().name())) {
        continue;
      }
      ObjectNode entry = list.addObject();
      entry.put("name", tool.descriptor().name());
      entry.put("version", tool.descriptor().version());
      entry.put("description", tool.descriptor().description());
      entry.set("inputSchema", tool.descriptor().inputSchema());
      entry.put("retentionSeconds", engine.retention(tool.descriptor()).toSeconds());
    }
    json(response, 200, root);
  }

  /** The OpenAPI document with the tools this token may call, like {@link #listTools}. */
  private void openApi(Principal principal, HttpServletResponse response) throws IOException {
    List<dev.toolledger.api.ToolDescriptor> tools =
        engine.tools().all().stream()
            .map(RegisteredTool::descriptor)
            .filter(tool -> principal.mayCall(tool.name()))
            .toList();
    List<String> views =
        principal.mayRead() ? reads.keySet().stream().sorted().toList() : List.of();
    json(response, 200, OpenApiDocument.of(tools, views));
  }

  private void read(
      ReadEndpoint endpoint,
      Principal principal,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    JsonNode result;
    try {
      result = endpoint.read(principal, Paths.query(request.getQueryString()));
    } catch (IllegalArgumentException e) {
      problem(response, Problem.of(ProblemType.INVALID_PARAMETERS, e.getMessage()));
      return;
    } catch (ReadEndpoint.Refused e) {
      problem(response, e.problem());
      return;
    }
    json(response, 200, result);
  }

  private void health(HttpServletResponse response) throws IOException {
    String problem;
    try {
      problem = health.problem();
    } catch (RuntimeException e) {
      LOG.warn("the health check failed", e);
      problem = "the health check failed";
    }
    ObjectNode body = Json.object();
    body.put("status", problem == null ? "ok" : "unavailable");
    if (problem != null) {
      body.put("reason", problem);
    }
    json(response, problem == null ? 200 : 503, body);
  }

  /** Answers 403 unless {@code allowed}; {@code needs} names the scopes the request needs. */
  private static boolean allowed(
      boolean allowed, String needs, Principal principal, HttpServletResponse response)
      throws IOException {
    if (!allowed) {
      problem(
          response,
          Problem.of(
              ProblemType.FORBIDDEN,
              "this token may not do this: it needs "
                  + needs
                  + " (its scopes: "
                  + principal.scopes()
                  + ")"));
    }
    return allowed;
  }

  private boolean requireMethod(String method, String allowed, HttpServletResponse response)
      throws IOException {
    if (method.equals(allowed)) {
      return true;
    }
    response.setHeader("Allow", allowed);
    problem(
        response,
        Problem.of(ProblemType.METHOD_NOT_ALLOWED, "use " + allowed + " on this resource"));
    return false;
  }

  private static boolean isJson(String contentType) {
    if (contentType == null || contentType.equalsIgnoreCase("application/json")) {
      return true; // the usual case, without splitting the header
    }
    String mediaType = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return mediaType.equals("application/json") || mediaType.endsWith("+json");
  }

  /**
   * {@code Prefer: wait=N} (RFC 7240): the caller's bound on waiting for a concurrent execution.
   */
  static Optional<Duration> preferredWait(java.util.Enumeration<String> headers) {
    Optional<Duration> wait = Optional.empty();
    for (String header : Collections.list(headers)) {
      for (String preference : header.split(",")) {
        String[] parts = preference.strip().split("=", 2);
        if (parts.length == 2 && parts[0].strip().equalsIgnoreCase("wait")) {
          try {
            long seconds = Long.parseLong(parts[1].strip().replace("\"", ""));
            if (seconds >= 0) {
              wait = Optional.of(Duration.ofSeconds(seconds));
            }
          } catch (NumberFormatException ignored) {
            // A malformed preference is ignored, as RFC 7240 asks.
          }
        }
      }
    }
    return wait;
  }

  private static void recorded(
      HttpServletResponse response, StoredResponse stored, boolean replayed) throws IOException {
    response.setHeader(REPLAYED_HEADER, Boolean.toString(replayed));
    write(
        response,
        stored.status(),
        stored.status() >= 400 ? "application/problem+json" : "application/json",
        stored.body().getBytes(StandardCharsets.UTF_8));
  }

  private static void json(HttpServletResponse response, int status, JsonNode body)
      throws IOException {
    write(response, status, "application/json", Json.write(body).getBytes(StandardCharsets.UTF_8));
  }

  static void problem(HttpServletResponse response, Problem problem) throws IOException {
    write(
        response,
        problem.status(),
        "application/problem+json",
        Json.write(problem.toJson()).getBytes(StandardCharsets.UTF_8));
  }

  private static void write(HttpServletResponse response, int status, String type, byte[] body)
      throws IOException {
    response.setStatus(status);
    response.setContentType(type);
    response.setHeader("Cache-Control", "no-store");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /**
   * Logs and counts a call refused before it reached the engine, like the engine's own refusals:
   * outcome {@code rejected}, with the problem type as the error category.
   */
  private void rejected(Principal principal, String tool, ProblemType reason, long startedNanos) {
    Duration duration = Duration.ofNanos(System.nanoTime() - startedNanos);
    LOG.atInfo()
        .addKeyValue("outcome", "rejected")
        .addKeyValue("error", reason.slug())
        .addKeyValue("tenant", principal.tenant().value())
        .addKeyValue("tool", printable(tool))
        .addKeyValue("ms", duration.toMillis())
        .log("operation");
    try {
      engine.listener().onOutcome(principal.tenant(), tool, "rejected", duration);
    } catch (RuntimeException e) {
      LOG.warn("an outcome listener threw; ignoring it", e);
    }
  }

  /** A tool name from the path, safe to echo: at most 64 visible ASCII characters. */
  private static String printable(String name) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < name.length() && sb.length() < 64; i++) {
      char c = name.charAt(i);
      sb.append(c >= 0x21 && c <= 0x7E ? c : '?');
    }
    return sb.toString();
  }
}
