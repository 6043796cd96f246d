package dev.toolledger.clientmcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.client.internal.OperationDocument;
import dev.toolledger.client.internal.ProblemOutcomes;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Content;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpTransportException;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an MCP answer from ToolLedger means for the caller: the MCP twin of the HTTP client's {@code
 * HttpAnswers}, with the same table. A pure function of the result (or of the exception the SDK
 * threw), so it can be tested on its own and side by side with the HTTP table.
 *
 * <p>For a write tool's {@code tools/call}:
 *
 * <ul>
 *   <li>A result (error or not) with {@code _meta} {@code dev.toolledger/replayed} is a recorded
 *       outcome: {@link Outcome.Completed}, final, whatever its status.
 *   <li>A tool error carries the HTTP API's problem document, so its type and status decide, as
 *       over HTTP: {@code operation-in-progress}, {@code 408}, {@code 429} and every {@code 5xx}
 *       but {@code response-too-large} ({@code ledger-busy}, {@code ledger-unavailable}, {@code
 *       tool-unavailable}, {@code tool-failed}, {@code internal-error}) are retried (with {@code
 *       dev.toolledger/retry-after-seconds}); {@code outcome-unknown} and {@code operation-expired}
 *       are {@link Outcome.Unknown}; everything else ({@code operation-not-executed}, {@code
 *       response-too-large}, {@code idempotency-key-reused}, {@code invalid-parameters}, ...) is
 *       {@link Outcome.Rejected}.
 *   <li>A result that is neither (no {@code replayed}, no ToolLedger problem) is not a ToolLedger
 *       outcome: {@link Outcome.Unknown}, like a 2xx without {@code Idempotent-Replayed} over HTTP.
 * </ul>
 *
 * <p>Exceptions from the SDK: a bearer token refused ({@code 401}/{@code 403}), a JSON-RPC error
 * that refuses the request ({@code -32602} for an unknown tool, {@code -32600}, {@code -32601},
 * {@code -32700}) and an HTTP {@code 4xx} on the POST are {@link Outcome.Rejected}, as their HTTP
 * counterparts are; everything else (connection refused, reset or closed before the answer,
 * timeouts, other JSON-RPC errors, a session the server no longer knows) is retried.
 */
final class McpAnswers {
  /**
   * The SDK states the HTTP status of a refused POST only in its exception's message ("Received
   * unexpected status code: 413, response body: {...}", "Server Not Found. Status code:404" in
   * mcp-core 2.2.0). If a later SDK words it otherwise, such an answer is retried instead, which is
   * safe; the 413 cases of {@code McpActionTransportTest} and {@code RealServerParityTest} pin the
   * wording against the real server.
   */
  private static final Pattern STATUS_IN_MESSAGE =
      Pattern.compile("status code: ?(\\d{3})\\b", Pattern.CASE_INSENSITIVE);

  private static final String BODY_IN_MESSAGE = "response body: ";

  private static final Set<Integer> REFUSING_JSON_RPC_CODES =
      Set.of(-32700, -32600, -32601, -32602);
  private static final int INVALID_PARAMS = -32602;

  private McpAnswers() {}

  // ---------------------------------------------------------------------------------------------
  // tools/call of a write tool

  static AttemptResult<Outcome> tool(OperationKey key, CallToolResult result) {
    Map<String, Object> meta = meta(result);
    Object replayed = meta.get(McpActionTransport.REPLAYED);
    if (replayed != null) {
      return AttemptResult.done(
          new Outcome.Completed(
              key, recordedStatus(result, meta), recordedBody(result), isTrue(replayed)));
    }
    if (!Boolean.TRUE.equals(result.isError())) {
      return AttemptResult.done(
          new Outcome.Unknown(
              key,
              "a tools/call result without "
                  + McpActionTransport.REPLAYED
                  + " is not a recorded ToolLedger outcome; check the MCP endpoint"));
    }
    Optional<ProblemDetails> found = problem(result, meta);
    if (found.isEmpty()) {
      return AttemptResult.done(
          new Outcome.Unknown(
              key,
              "a tool error without a ToolLedger problem document is not a ToolLedger answer;"
                  + " check the MCP endpoint"));
    }
    ProblemDetails problem = found.get();
    return ProblemOutcomes.classify(
        key,
        problem,
        retryAfter(meta),
        "tool error",
        "a tool error with status "
            + problem.status()
            + " and without "
            + McpActionTransport.REPLAYED
            + " is not a recorded ToolLedger outcome; check the MCP endpoint");
  }

  /** The SDK threw instead of answering: refused for good, or worth another attempt. */
  static AttemptResult<Outcome> toolFailure(OperationKey key, String tool, Throwable failure) {
    Failure classified = classify(failure, tool);
    if (classified instanceof Failure.Refused refused) {
      return AttemptResult.done(new Outcome.Rejected(key, refused.problem()));
    }
    return AttemptResult.retry(((Failure.Transient) classified).reason());
  }

  // ---------------------------------------------------------------------------------------------
  // get-operation

  static AttemptResult<LookupResult> lookup(OperationKey key, CallToolResult result) {
    Map<String, Object> meta = meta(result);
    if (!Boolean.TRUE.equals(result.isError())) {
      try {
        JsonNode operation =
            result.structuredContent() != null
                ? Json.mapper().valueToTree(result.structuredContent())
                : Json.parse(text(result).orElse(""));
        return AttemptResult.done(OperationDocument.read(key, operation));
      } catch (MalformedJsonException | IllegalArgumentException e) {
        // Not JSON, or structured content that Jackson cannot turn into a tree.
        return AttemptResult.done(new LookupResult.Unavailable(key, OperationDocument.UNREADABLE));
      }
    }
    Optional<ProblemDetails> problem = problem(result, meta);
    if (problem.isPresent() && problem.get().is(ProblemType.NOT_FOUND)) {
      return AttemptResult.done(new LookupResult.NotFound(key));
    }
    int status = problem.map(ProblemDetails::status).orElse(0);
    String what =
        "tool error"
            + (status > 0 ? " " + status : "")
            + problem.flatMap(ProblemDetails::knownType).map(t -> " " + t.slug()).orElse("");
    if (status == 408 || status == 429 || status >= 500) {
      return AttemptResult.retryAfter(what, retryAfter(meta));
    }
    return AttemptResult.done(new LookupResult.Unavailable(key, "the lookup was refused: " + what));
  }

  static AttemptResult<LookupResult> lookupFailure(OperationKey key, Throwable failure) {
    Failure classified = classify(failure, McpActionTransport.GET_OPERATION);
    if (classified instanceof Failure.Refused refused) {
      ProblemDetails problem = refused.problem();
      return AttemptResult.done(
          new LookupResult.Unavailable(
              key,
              "the lookup was refused: "
                  + problem.status()
                  + problem.knownType().map(t -> " " + t.slug()).orElse("")));
    }
    return AttemptResult.retry(((Failure.Transient) classified).reason());
  }

  // ---------------------------------------------------------------------------------------------
  // exceptions

  /** How an exception thrown by the SDK client ends one attempt. */
  sealed interface Failure {
    /** The request was refused and nothing happened; another attempt gets the same answer. */
    record Refused(ProblemDetails problem) implements Failure {}

    /** No answer, or one that another attempt with the same key may get past. */
    record Transient(String reason) implements Failure {}
  }

  /**
   * Classifies what the SDK threw. Only class names and protocol codes go into the reason: SDK
   * messages can quote URLs, session ids and whole messages.
   */
  static Failure classify(Throwable failure, String tool) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof McpHttpClientTransportAuthorizationException refused) {
        int status =
            refused.getResponseInfo() == null ? 401 : refused.getResponseInfo().statusCode();
        ProblemType type = status == 403 ? ProblemType.FORBIDDEN : ProblemType.UNAUTHORIZED;
        return new Failure.Refused(
            ProblemDetails.of(
                type,
                "the MCP endpoint refused the bearer token (HTTP "
                    + status
                    + "); check the token and its tenant"));
      }
      if (t instanceof McpError error && error.getJsonRpcError() != null) {
        Integer code = error.getJsonRpcError().code();
        if (code != null && REFUSING_JSON_RPC_CODES.contains(code)) {
          // Only the answer to the call itself names the tool; the same code wrapped in a failed
          // initialization is about the session (for example an unsupported protocol version).
          return new Failure.Refused(
              t == failure && code == INVALID_PARAMS
                  ? unknownTool(tool)
                  : jsonRpcRefusal(code, t == failure));
        }
        return new Failure.Transient("JSON-RPC error " + code);
      }
      if (t instanceof TimeoutException) {
        return new Failure.Transient("timed out (" + t.getClass().getSimpleName() + ")");
      }
      if (t instanceof McpTransportException && t.getMessage() != null) {
        Matcher status = STATUS_IN_MESSAGE.matcher(t.getMessage());
        if (status.find()) {
          int code = Integer.parseInt(status.group(1));
          if (code >= 400 && code < 500 && code != 408 && code != 429) {
            return new Failure.Refused(ProblemDetails.parse(code, bodyIn(t.getMessage())));
          }
          return new Failure.Transient("HTTP " + code + " on the MCP endpoint");
        }
      }
    }
    return new Failure.Transient("transport failure (" + rootCause(failure) + ")");
  }

  /** The response body the SDK quotes after the status, if any; null otherwise. */
  private static String bodyIn(String message) {
    int at = message.indexOf(BODY_IN_MESSAGE);
    return at < 0 ? null : message.substring(at + BODY_IN_MESSAGE.length());
  }

  private static ProblemDetails unknownTool(String tool) {
    return ProblemDetails.of(
        ProblemType.UNKNOWN_TOOL,
        "the MCP server has no tool named '" + tool + "' (JSON-RPC error " + INVALID_PARAMS + ")");
  }

  private static ProblemDetails jsonRpcRefusal(int code, boolean call) {
    ObjectNode document = Json.object();
    document.put("type", ProblemDetails.ABOUT_BLANK.toString());
    document.put("title", "JSON-RPC error " + code);
    document.put("status", 400);
    document.put(
        "detail",
        call
            ? "the MCP server refused the tools/call request with JSON-RPC error " + code
            : "the MCP server refused the session with JSON-RPC error " + code);
    document.put("jsonRpcCode", code);
    return ProblemDetails.fromDocument(document, 400);
  }

  private static String rootCause(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable root = failure;
    while (root.getCause() != null && seen.add(root)) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName();
  }

  // ---------------------------------------------------------------------------------------------
  // parts of a result

  private static Map<String, Object> meta(CallToolResult result) {
    return result.meta() == null ? Map.of() : result.meta();
  }

  private static boolean isTrue(Object value) {
    return Boolean.TRUE.equals(value) || "true".equals(value);
  }

  private static int recordedStatus(CallToolResult result, Map<String, Object> meta) {
    Object status = meta.get(McpActionTransport.STATUS);
    if (status instanceof Number number) {
      return number.intValue();
    }
    return Boolean.TRUE.equals(result.isError()) ? 500 : 200;
  }

  /**
   * The recorded body as the HTTP API would give it. The server puts it in {@code
   * structuredContent}, wrapping a body that is not a JSON object as {@code {"value": body}}, and
   * verbatim in a text block; a wrapped body is unwrapped when the text block confirms it.
   */
  static JsonNode recordedBody(CallToolResult result) {
    Optional<String> text = text(result);
    if (result.structuredContent() != null) {
      JsonNode structured = Json.mapper().valueToTree(result.structuredContent());
      if (structured.isObject() && structured.size() == 1 && structured.has("value")) {
        Optional<JsonNode> verbatim = text.flatMap(McpAnswers::parse);
        if (verbatim.isPresent()
            && !verbatim.get().isObject()
            && verbatim.get().equals(structured.get("value"))) {
          return verbatim.get();
        }
      }
      return structured;
    }
    return text.map(t -> parse(t).orElseGet(() -> TextNode.valueOf(t)))
        .orElseGet(() -> TextNode.valueOf(""));
  }

  /**
   * The problem document of a tool error: {@code structuredContent} (or the text block) when it is
   * a JSON object, its type from {@code dev.toolledger/problem-type} when the document has none,
   * its status from the document or else from the known type. Empty when neither a status nor a
   * known type can be found: then it is not a ToolLedger problem.
   */
  private static Optional<ProblemDetails> problem(CallToolResult result, Map<String, Object> meta) {
    JsonNode json =
        result.structuredContent() != null
            ? Json.mapper().valueToTree(result.structuredContent())
            : text(result).flatMap(McpAnswers::parse).orElse(null);
    ObjectNode document = json != null && json.isObject() ? (ObjectNode) json : Json.object();
    Object metaType = meta.get(McpActionTransport.PROBLEM_TYPE);
    if (!document.path("type").isTextual() && metaType instanceof String type) {
      document.put("type", type);
    }
    Optional<ProblemType> known =
        document.path("type").isTextual()
            ? ProblemType.fromUri(document.path("type").textValue())
            : Optional.empty();
    int status =
        document.path("status").canConvertToInt() && document.path("status").isNumber()
            ? document.path("status").intValue()
            : known.map(ProblemType::status).orElse(0);
    if (status <= 0) {
      return Optional.empty();
    }
    return Optional.of(ProblemDetails.fromDocument(document, status));
  }

  private static Optional<Duration> retryAfter(Map<String, Object> meta) {
    Object seconds = meta.get(McpActionTransport.RETRY_AFTER_SECONDS);
    if (seconds instanceof Number number && number.longValue() >= 0) {
      return Optional.of(Duration.ofSeconds(number.longValue()));
    }
    return Optional.empty();
  }

  private static Optional<String> text(CallToolResult result) {
    if (result.content() == null) {
      return Optional.empty();
    }
    for (Content content : result.content()) {
      if (content instanceof TextContent text && text.text() != null) {
        return Optional.of(text.text());
      }
    }
    return Optional.empty();
  }

  private static Optional<JsonNode> parse(String text) {
    try {
      return Optional.of(Json.parse(text));
    } catch (MalformedJsonException e) {
      return Optional.empty();
    }
  }
}
