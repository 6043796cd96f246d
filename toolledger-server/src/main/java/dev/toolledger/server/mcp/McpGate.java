package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.engine.OutcomeListener;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.answer.Printable;
import dev.toolledger.server.answer.Rejections;
import dev.toolledger.server.auth.AuthorizationHeader;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import dev.toolledger.server.http.BoundedBody;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in front of the MCP transport servlet, so that every MCP request gets exactly one stable
 * answer: an HTTP problem document for what is wrong before JSON-RPC starts (token, method,
 * headers, body size, session), a JSON-RPC error with a documented code for a message that is not
 * one the server can take, or the transport's answer ({@link JsonAnswerTransport}: one JSON message
 * from the SDK's session). Nothing of an exception (stack trace, class name, JVM version) reaches a
 * client: an error the transport meets is an HTTP status, which the gate answers.
 *
 * <ul>
 *   <li>A request with several {@code Authorization} headers is answered {@code 400}.
 *   <li>Only requests with an active bearer token pass; their principal goes on as a request
 *       attribute, and everything else is answered {@code 401} with the HTTP API's problem
 *       document. The tenant comes from the token and from nothing the client says. An operator
 *       token, which acts for no tenant, is answered {@code 403}.
 *   <li>{@code GET} (a standing server-to-client SSE stream) is answered {@code 405}, which the MCP
 *       specification allows: ToolLedger has nothing to send outside a request's own response
 *       stream. The SDK's client takes the 405 to mean request-response mode.
 *   <li>The body is read here, bounded, and must be one JSON-RPC 2.0 message in UTF-8 (the HTTP
 *       API's rules: no invalid UTF-8, no duplicate member names); {@code params} must have the
 *       shape of its method.
 *   <li>A session is bound to the token that opened it, idles out and is capped per token ({@link
 *       McpSessions}); an unknown, expired or foreign session is answered {@code 404} alike.
 *   <li>{@code tools/call} of a name the token may not call is refused the same way whether a tool
 *       of that name exists or not, so a narrow token learns no tool names; a name the token may
 *       call but no tool has is an unknown-tool error. Both are counted as {@code rejected}.
 * </ul>
 */
final class McpGate extends HttpFilter {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(McpGate.class);

  /** The request attribute that carries the authenticated {@link Principal}. */
  static final String PRINCIPAL_ATTRIBUTE = McpGate.class.getName() + ".principal";

  /**
   * The request attribute that carries the POSTed message as the gate parsed and checked it (a
   * {@link JsonNode}): the transport binds that tree instead of parsing the body again.
   */
  static final String MESSAGE_ATTRIBUTE = McpGate.class.getName() + ".message";

  static final String SESSION_HEADER = "Mcp-Session-Id";
  static final String PROTOCOL_HEADER = "MCP-Protocol-Version";

  private final transient Tokens tokens;
  private final transient McpSessions sessions;
  private final transient ToolRegistry tools;
  private final transient Rejections rejections;
  private final transient McpJsonMapper jsonMapper;
  private final List<String> protocolVersions;
  private final int maxRequestBytes;

  McpGate(
      Tokens tokens,
      McpSessions sessions,
      ToolRegistry tools,
      OutcomeListener listener,
      McpJsonMapper jsonMapper,
      List<String> protocolVersions,
      int maxRequestBytes) {
    this.tokens = tokens;
    this.sessions = sessions;
    this.tools = tools;
    this.rejections = new Rejections(LOG, listener, "mcp");
    this.jsonMapper = jsonMapper;
    this.protocolVersions = List.copyOf(protocolVersions);
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Optional<Problem> several = AuthorizationHeader.several(request);
    if (several.isPresent()) {
      problem(response, several.get());
      return;
    }
    Optional<Principal> found = tokens.authenticateHeader(request.getHeader("Authorization"));
    if (found.isEmpty()) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"toolledger\"");
      problem(
          response,
          Problem.of(
              ProblemType.UNAUTHORIZED,
              "send 'Authorization: Bearer <token>' with a token from 'toolledger tokens create'"));
      return;
    }
    Principal principal = found.get();
    if (principal.isOperator()) {
      problem(
          response,
          Problem.of(
              ProblemType.FORBIDDEN,
              "an operator token acts for no tenant and is not accepted by MCP; use a tenant's"
                  + " token"));
      return;
    }
    request.setAttribute(PRINCIPAL_ATTRIBUTE, principal);
    switch (request.getMethod()) {
      case "POST" -> post(principal, request, response, chain);
      case "DELETE" -> delete(principal, request, response, chain);
      default -> {
        response.setHeader("Allow", "POST, DELETE");
        problem(
            response,
            Problem.of(
                ProblemType.METHOD_NOT_ALLOWED,
                "this MCP endpoint offers no standing SSE stream; POST requests, DELETE a"
                    + " session"));
      }
    }
  }

  private void delete(
      Principal principal,
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain)
      throws IOException, ServletException {
    String sessionId = request.getHeader(SESSION_HEADER);
    if (sessionId == null || sessionId.isBlank()) {
      problem(
          response,
          Problem.of(
              ProblemType.BAD_REQUEST, "send the session to close in the Mcp-Session-Id header"));
      return;
    }
    if (!sessions.use(sessionId, principal)) {
      sessionNotFound(response);
      return;
    }
    TransportErrorGuard guarded = new TransportErrorGuard(response);
    chain.doFilter(request, guarded);
    sessions.close(sessionId);
    if (guarded.failedWith() != 0 && !response.isCommitted()) {
      response.reset();
      response.setStatus(HttpServletResponse.SC_OK);
    }
  }

  private void post(
      Principal principal,
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain)
      throws IOException, ServletException {
    String accept = request.getHeader("Accept");
    if (accept == null
        || !accept.contains("application/json")
        || !accept.contains("text/event-stream")) {
      problem(
          response,
          Problem.of(
              ProblemType.BAD_REQUEST,
              "send 'Accept: application/json, text/event-stream', as the MCP Streamable HTTP"
                  + " transport requires"));
      return;
    }
    if (!isJson(request.getContentType())) {
      problem(
          response,
          Problem.of(
              ProblemType.UNSUPPORTED_MEDIA_TYPE,
              "send one JSON-RPC message with 'Content-Type: application/json'"));
      return;
    }
    String version = request.getHeader(PROTOCOL_HEADER);
    if (version != null && !protocolVersions.contains(version)) {
      problem(
          response,
          Problem.of(
              ProblemType.BAD_REQUEST,
              "this server speaks MCP protocol versions "
                  + protocolVersions
                  + "; send the version initialize negotiated in the MCP-Protocol-Version"
                  + " header"));
      return;
    }
    byte[] body = BoundedBody.read(request, maxRequestBytes);
    if (body == null) {
      problem(
          response,
          Problem.of(
              ProblemType.PAYLOAD_TOO_LARGE,
              "the message is larger than " + maxRequestBytes + " bytes"));
      return;
    }
    JsonNode message;
    try {
      message = Json.parse(body);
      checkUtf8(body);
    } catch (MalformedJsonException e) {
      jsonRpc(
          response,
          JsonRpcErrors.PARSE_ERROR,
          null,
          "the body is not one JSON text in UTF-8: " + e.getMessage());
      return;
    } catch (CharacterCodingException e) {
      jsonRpc(response, JsonRpcErrors.PARSE_ERROR, null, "the body is not valid UTF-8");
      return;
    }
    McpMessage parsed = McpMessage.check(message, jsonMapper);
    if (parsed instanceof McpMessage.Refused refused) {
      jsonRpc(response, refused.error(), refused.id(), refused.reason());
      return;
    }
    McpMessage.Accepted accepted = (McpMessage.Accepted) parsed;
    request.setAttribute(MESSAGE_ATTRIBUTE, message);

    if (McpSchema.METHOD_INITIALIZE.equals(accepted.method())) {
      initialize(principal, request, response, chain);
      return;
    }
    String sessionId = request.getHeader(SESSION_HEADER);
    if (sessionId == null || sessionId.isBlank()) {
      problem(
          response,
          Problem.of(
              ProblemType.BAD_REQUEST,
              "send the Mcp-Session-Id header that initialize answered; open a session with"
                  + " initialize first"));
      return;
    }
    if (!sessions.use(sessionId, principal)) {
      sessionNotFound(response);
      return;
    }
    if (McpSchema.METHOD_TOOLS_CALL.equals(accepted.method()) && accepted.isRequest()) {
      String tool = accepted.params().path("name").textValue();
      if (!tool.equals(McpConventions.GET_OPERATION)) {
        // Before the tool's existence, so that a tool outside the token's scopes is not revealed.
        if (!principal.mayCall(tool)) {
          rejections.count(principal, tool, ProblemType.FORBIDDEN, System.nanoTime());
          result(response, accepted.id(), McpResults.of(Answers.mayNotCall(principal, tool), null));
          return;
        }
        if (tools.find(tool).isEmpty()) {
          rejections.count(principal, tool, ProblemType.UNKNOWN_TOOL, System.nanoTime());
          jsonRpc(
              response,
              JsonRpcErrors.UNKNOWN_TOOL,
              accepted.id(),
              "no tool is named '" + Printable.name(tool) + "'; tools/list lists them");
          return;
        }
      }
    }
    passOn(request, response, chain, sessionId, accepted.id());
  }

  private void initialize(
      Principal principal,
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain)
      throws IOException, ServletException {
    McpSessions.Reservation reservation = sessions.reserve(principal);
    if (reservation instanceof McpSessions.Reservation.Refused refused) {
      problem(
          response,
          Problem.of(
              ProblemType.MCP_SESSION_LIMIT,
              "this token holds "
                  + refused.limit()
                  + " open MCP sessions, the most it may; reuse one, close one with DELETE, or"
                  + " wait until one idles out"));
      return;
    }
    McpSessions.Reservation.Granted slot = (McpSessions.Reservation.Granted) reservation;
    SessionOpeningResponse opening =
        new SessionOpeningResponse(response, id -> sessions.open(slot, principal, id));
    boolean answered = false;
    try {
      TransportErrorGuard guarded = new TransportErrorGuard(opening);
      chain.doFilter(request, guarded);
      answered = guarded.failedWith() == 0;
      if (!answered) {
        answerFailure(response, guarded.failedWith(), null, null);
      }
    } finally {
      String opened = opening.opened();
      if (opened == null) {
        sessions.release(slot);
      } else if (!answered) {
        // The client is told initialize failed, so it never learns this id.
        sessions.close(opened);
      }
    }
  }

  private void passOn(
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain,
      String sessionId,
      JsonNode id)
      throws IOException, ServletException {
    TransportErrorGuard guarded = new TransportErrorGuard(response);
    chain.doFilter(request, guarded);
    if (guarded.failedWith() != 0) {
      answerFailure(response, guarded.failedWith(), sessionId, id);
    }
  }

  /**
   * Replaces an error answer of the transport (an HTTP status, say {@code 503} while closing) with
   * a stable one.
   */
  private void answerFailure(
      HttpServletResponse response, int status, String sessionId, JsonNode id) throws IOException {
    LOG.atWarn()
        .addKeyValue("status", status)
        .log("the MCP transport refused a request that passed the gate; answering a stable error");
    if (response.isCommitted()) {
      return;
    }
    response.reset();
    if (status == HttpServletResponse.SC_NOT_FOUND && sessionId != null) {
      sessions.close(sessionId);
      sessionNotFound(response);
    } else if (status == HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE) {
      problem(
          response,
          Problem.of(
              ProblemType.PAYLOAD_TOO_LARGE,
              "the message is larger than " + maxRequestBytes + " bytes"));
    } else if (status >= 500) {
      jsonRpc(
          response,
          JsonRpcErrors.INTERNAL_ERROR,
          id,
          status == HttpServletResponse.SC_SERVICE_UNAVAILABLE
              ? "the server is stopping; send the request again shortly (another node, or this"
                  + " one after its restart)"
              : "the server could not handle this message; if it was a tool call, look its key"
                  + " up with "
                  + McpConventions.GET_OPERATION
                  + " before calling again");
    } else {
      jsonRpc(
          response,
          JsonRpcErrors.INVALID_REQUEST,
          id,
          "the server could not take this message (HTTP " + status + ")");
    }
  }

  private void result(HttpServletResponse response, JsonNode id, CallToolResult result)
      throws IOException {
    ObjectNode root = Json.object();
    root.put("jsonrpc", "2.0");
    root.set("id", id);
    root.set("result", Json.parse(jsonMapper.writeValueAsString(result)));
    write(response, 200, "application/json", Json.write(root));
  }

  private static void jsonRpc(
      HttpServletResponse response, JsonRpcErrors error, JsonNode id, String message)
      throws IOException {
    write(response, error.httpStatus(), "application/json", Json.write(error.answer(id, message)));
  }

  private static void sessionNotFound(HttpServletResponse response) throws IOException {
    // The same answer for a session never opened, one that idled out or was closed, and one that
    // another token opened: a session id grants nothing.
    problem(
        response,
        Problem.of(
            ProblemType.MCP_SESSION_NOT_FOUND,
            "no open MCP session with this id for this token; open a new one with initialize"));
  }

  private static void problem(HttpServletResponse response, Problem problem) throws IOException {
    write(response, problem.status(), "application/problem+json", Json.write(problem.toJson()));
  }

  private static void write(HttpServletResponse response, int status, String type, String body)
      throws IOException {
    write(response, status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  /** Every answer of the MCP endpoint, the gate's and the transport's: never cached. */
  static void write(HttpServletResponse response, int status, String type, byte[] bytes)
      throws IOException {
    response.setStatus(status);
    response.setHeader("Cache-Control", "no-store");
    response.setContentType(type);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  /**
   * Refuses a body that is not valid UTF-8, which the JSON parser lets through in places (encoded
   * surrogates, say). An all-ASCII body, the usual one, is valid without decoding it.
   */
  private static void checkUtf8(byte[] body) throws CharacterCodingException {
    for (byte b : body) {
      if (b < 0) {
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(body));
        return;
      }
    }
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return true;
    }
    String mediaType = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return mediaType.equals("application/json") || mediaType.endsWith("+json");
  }
}
