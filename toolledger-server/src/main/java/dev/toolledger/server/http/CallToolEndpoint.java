package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.answer.Answer;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.answer.Channel;
import dev.toolledger.server.answer.Printable;
import dev.toolledger.server.answer.Rejections;
import dev.toolledger.server.auth.Principal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/tools/{name}}: one tool call under the {@code Idempotency-Key} header. Every
 * refusal before the engine is logged and counted as {@code rejected}, like the engine's own.
 */
final class CallToolEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(CallToolEndpoint.class);

  private final LedgerEngine engine;
  private final int maxRequestBytes;
  private final Rejections rejections;

  CallToolEndpoint(LedgerEngine engine, int maxRequestBytes) {
    this.engine = engine;
    this.maxRequestBytes = maxRequestBytes;
    this.rejections = new Rejections(LOG, engine.listener(), null);
  }

  void serve(
      Principal principal,
      String toolName,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    long started = System.nanoTime();
    // Before the tool's existence, so that a tool outside the token's scopes is not revealed, and
    // before the key, so that a replay needs the scope as much as a first call does.
    if (!principal.mayCall(toolName)) {
      refuse(principal, toolName, started, Answers.mayNotCall(principal, toolName), response);
      return;
    }
    if (engine.tools().find(toolName).isEmpty()) {
      refuse(
          principal,
          toolName,
          started,
          problem(
              ProblemType.UNKNOWN_TOOL,
              "no tool is named '" + Printable.name(toolName) + "'; GET /v1/tools lists them"),
          response);
      return;
    }
    List<String> keyHeaders = Collections.list(request.getHeaders("Idempotency-Key"));
    if (keyHeaders.isEmpty()) {
      refuse(
          principal,
          toolName,
          started,
          problem(
              ProblemType.MISSING_KEY,
              "send the action's operation key in the Idempotency-Key header: the same key on"
                  + " every retry of one action, a new key for every new action"),
          response);
      return;
    }
    OperationKey key;
    try {
      if (keyHeaders.size() > 1) {
        throw new InvalidOperationKeyException("send exactly one Idempotency-Key header");
      }
      key = OperationKey.fromHeader(keyHeaders.get(0));
    } catch (InvalidOperationKeyException e) {
      refuse(principal, toolName, started, Answers.invalidKey(e.getMessage()), response);
      return;
    }
    if (!isJson(request.getContentType())) {
      refuse(
          principal,
          toolName,
          started,
          problem(
              ProblemType.UNSUPPORTED_MEDIA_TYPE,
              "send the parameters as a JSON object with 'Content-Type: application/json'"),
          response);
      return;
    }
    byte[] body = BoundedBody.read(request, maxRequestBytes);
    if (body == null) {
      refuse(principal, toolName, started, tooLarge(maxRequestBytes), response);
      return;
    }
    JsonNode parameters;
    try {
      parameters = Json.parse(body);
    } catch (MalformedJsonException e) {
      refuse(
          principal,
          toolName,
          started,
          problem(ProblemType.MALFORMED_JSON, e.getMessage()),
          response);
      return;
    }
    Invocation invocation =
        new Invocation(
            principal.tenant(),
            key,
            toolName,
            parameters,
            preferredWait(request.getHeaders("Prefer")));
    HttpFrame.of(Answers.of(engine.execute(invocation), Channel.HTTP)).writeTo(response);
  }

  /** {@code 413}: the request's body is over the server's bound. */
  static Answer.Refused tooLarge(int maxRequestBytes) {
    return problem(
        ProblemType.PAYLOAD_TOO_LARGE, "the body is larger than " + maxRequestBytes + " bytes");
  }

  private void refuse(
      Principal principal,
      String toolName,
      long started,
      Answer.Refused refusal,
      HttpServletResponse response)
      throws IOException {
    rejections.count(principal, toolName, refusal.problem().type(), started);
    HttpFrame.of(refusal).writeTo(response);
  }

  private static Answer.Refused problem(ProblemType type, String detail) {
    return Answer.Refused.of(Problem.of(type, detail));
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
  static Optional<Duration> preferredWait(Enumeration<String> headers) {
    Optional<Duration> wait = Optional.empty();
    for (String header : Collections.list(headers)) {
      for (String preference : header.split(",", -1)) {
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
}
