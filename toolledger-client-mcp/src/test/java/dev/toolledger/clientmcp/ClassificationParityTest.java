package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.client.HttpSide;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.protocol.StoredResponse;
import dev.toolledger.server.mcp.McpConventions;
import dev.toolledger.server.mcp.ServerMcpResults;
import dev.toolledger.server.operations.OperationJson;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MCP transport classifies every answer exactly as the HTTP transport classifies its HTTP
 * counterpart. Each row builds the answer both ways — the HTTP status, headers and problem document
 * of the HTTP API, and the tool result the server's own {@code McpResults} produces, passed through
 * the SDK's JSON mapper as on the wire — and runs it through both clients' tables: {@code
 * HttpAnswers} and {@code McpAnswers}. The expected column is docs/client.md's retry table, so the
 * two cannot agree on a wrong answer, and a new problem type fails here until it has a row.
 */
class ClassificationParityTest {
  private static final OperationKey KEY = OperationKey.of("parity-key-0123456789abcdef");
  private static final Duration RETRY_AFTER = Duration.ofSeconds(7);
  private static final McpJsonMapper WIRE = new JacksonMcpJsonMapperSupplier().get();

  private enum Kind {
    RETRY,
    REJECTED,
    UNKNOWN
  }

  /** docs/client.md, "What is retried". */
  private static final Map<ProblemType, Kind> EXPECTED = new EnumMap<>(ProblemType.class);

  static {
    EXPECTED.put(ProblemType.MISSING_KEY, Kind.REJECTED);
    EXPECTED.put(ProblemType.INVALID_KEY, Kind.REJECTED);
    EXPECTED.put(ProblemType.MALFORMED_JSON, Kind.REJECTED);
    EXPECTED.put(ProblemType.INVALID_PARAMETERS, Kind.REJECTED);
    EXPECTED.put(ProblemType.INVALID_AUTHORIZATION, Kind.REJECTED);
    EXPECTED.put(ProblemType.UNAUTHORIZED, Kind.REJECTED);
    EXPECTED.put(ProblemType.FORBIDDEN, Kind.REJECTED);
    EXPECTED.put(ProblemType.UNKNOWN_TOOL, Kind.REJECTED);
    EXPECTED.put(ProblemType.NOT_FOUND, Kind.REJECTED);
    EXPECTED.put(ProblemType.METHOD_NOT_ALLOWED, Kind.REJECTED);
    EXPECTED.put(ProblemType.IN_PROGRESS, Kind.RETRY);
    EXPECTED.put(ProblemType.OUTCOME_UNKNOWN, Kind.UNKNOWN);
    EXPECTED.put(ProblemType.NOT_EXECUTED, Kind.REJECTED);
    EXPECTED.put(ProblemType.NOT_RESOLVABLE, Kind.REJECTED);
    EXPECTED.put(ProblemType.EXPIRED, Kind.UNKNOWN);
    EXPECTED.put(ProblemType.PAYLOAD_TOO_LARGE, Kind.REJECTED);
    EXPECTED.put(ProblemType.UNSUPPORTED_MEDIA_TYPE, Kind.REJECTED);
    EXPECTED.put(ProblemType.KEY_REUSED, Kind.REJECTED);
    EXPECTED.put(ProblemType.RATE_LIMITED, Kind.RETRY);
    EXPECTED.put(ProblemType.TOOL_FAILED, Kind.RETRY);
    EXPECTED.put(ProblemType.RESPONSE_TOO_LARGE, Kind.REJECTED);
    EXPECTED.put(ProblemType.TOOL_UNAVAILABLE, Kind.RETRY);
    EXPECTED.put(ProblemType.INTERNAL, Kind.RETRY);
    EXPECTED.put(ProblemType.STORE_BUSY, Kind.RETRY);
    EXPECTED.put(ProblemType.STORE_UNAVAILABLE, Kind.RETRY);
    EXPECTED.put(ProblemType.NODE_STOPPING, Kind.RETRY);
    // Transport-level refusals of /mcp (problem documents before JSON-RPC starts), by status.
    EXPECTED.put(ProblemType.BAD_REQUEST, Kind.REJECTED);
    EXPECTED.put(ProblemType.FORBIDDEN_ORIGIN, Kind.REJECTED);
    EXPECTED.put(ProblemType.MCP_SESSION_NOT_FOUND, Kind.REJECTED);
    EXPECTED.put(ProblemType.MCP_SESSION_LIMIT, Kind.RETRY);
    EXPECTED.put(ProblemType.MISDIRECTED_HOST, Kind.REJECTED);
    EXPECTED.put(ProblemType.REQUEST_TIMEOUT, Kind.RETRY);
    // Read views are not tool calls; their problems are classified alike all the same.
    EXPECTED.put(ProblemType.READ_VIEW_TIMEOUT, Kind.RETRY);
    EXPECTED.put(ProblemType.READ_VIEW_TOO_LARGE, Kind.REJECTED);
  }

  /** The problems the server sends with a time to come back (Retry-After / retry-after-seconds). */
  private static final Set<ProblemType> WITH_RETRY_AFTER =
      Set.of(
          ProblemType.IN_PROGRESS,
          ProblemType.TOOL_UNAVAILABLE,
          ProblemType.STORE_BUSY,
          ProblemType.STORE_UNAVAILABLE,
          ProblemType.NODE_STOPPING,
          ProblemType.RATE_LIMITED);

  @ParameterizedTest(name = "{0}")
  @EnumSource(ProblemType.class)
  void everyProblemTypeIsRetriedRejectedOrUnknownAlikeOverHttpAndMcp(ProblemType type) {
    assertThat(EXPECTED).as("docs/client.md has a row for %s", type).containsKey(type);
    Problem problem =
        Problem.of(type, "what went wrong").with("errors", Json.parse("[{\"field\":\"title\"}]"));
    Optional<Duration> retryAfter =
        WITH_RETRY_AFTER.contains(type) ? Optional.of(RETRY_AFTER) : Optional.empty();

    AttemptResult<Outcome> overHttp =
        HttpSide.tool(
            KEY,
            type.status(),
            retryAfter
                .map(d -> Map.of("Retry-After", Long.toString(d.toSeconds())))
                .orElse(Map.of()),
            Json.write(problem.toJson()));
    AttemptResult<Outcome> overMcp =
        McpAnswers.tool(
            KEY,
            wire(ServerMcpResults.problem(problem, KEY, stateFor(type), retryAfter.orElse(null))));

    String expected =
        switch (EXPECTED.get(type)) {
          case RETRY -> "retry" + retryAfter.map(d -> " after " + d.toSeconds() + " s").orElse("");
          case UNKNOWN -> "unknown";
          case REJECTED -> "rejected " + type.slug() + " " + type.status();
        };
    assertThat(summary(overHttp)).as("HTTP").isEqualTo(expected);
    assertThat(summary(overMcp)).as("MCP").isEqualTo(expected);
    if (overMcp instanceof AttemptResult.Done<Outcome> done
        && done.value() instanceof Outcome.Rejected rejected) {
      Outcome.Rejected overHttpRejected =
          (Outcome.Rejected) ((AttemptResult.Done<Outcome>) overHttp).value();
      assertThat(rejected.problem().document())
          .as("the journal keeps the same problem document")
          .isEqualTo(overHttpRejected.problem().document());
    }
  }

  static Stream<Arguments> recordedOutcomes() {
    return Stream.of(
        Arguments.of(201, "{\"id\":1,\"title\":\"groceries\",\"body\":\"\"}", false),
        Arguments.of(201, "{\"id\":1,\"title\":\"groceries\",\"body\":\"\"}", true),
        Arguments.of(
            409,
            "{\"type\":\"https://toolledger.dev/problems/notes/quota-exceeded\","
                + "\"title\":\"Quota exceeded\",\"status\":409}",
            false),
        Arguments.of(
            409,
            "{\"type\":\"https://toolledger.dev/problems/notes/quota-exceeded\","
                + "\"title\":\"Quota exceeded\",\"status\":409}",
            true),
        Arguments.of(503, "{\"title\":\"recorded as failed by the tool\"}", true),
        Arguments.of(200, "[1,2,3]", false),
        Arguments.of(200, "{\"value\":[1,2,3]}", true),
        Arguments.of(200, "\"just text\"", true),
        Arguments.of(200, "42", false),
        Arguments.of(204, "null", true));
  }

  @ParameterizedTest(name = "{0} {1} replayed={2}")
  @MethodSource("recordedOutcomes")
  void recordedOutcomeIsCompletedWithTheSameStatusBodyAndReplayFlagOverHttpAndMcp(
      int status, String body, boolean replayed) {
    OperationRecord record = completed(new StoredResponse(status, body));
    ExecutionOutcome outcome =
        replayed ? new ExecutionOutcome.Replayed(record) : new ExecutionOutcome.Executed(record);

    AttemptResult<Outcome> overHttp =
        HttpSide.tool(KEY, status, Map.of("Idempotent-Replayed", Boolean.toString(replayed)), body);
    AttemptResult<Outcome> overMcp = McpAnswers.tool(KEY, wire(ServerMcpResults.of(outcome, KEY)));

    Outcome.Completed http = (Outcome.Completed) ((AttemptResult.Done<Outcome>) overHttp).value();
    assertThat(overMcp).isInstanceOf(AttemptResult.Done.class);
    Outcome.Completed mcp = (Outcome.Completed) ((AttemptResult.Done<Outcome>) overMcp).value();
    assertThat(mcp.status()).isEqualTo(http.status()).isEqualTo(status);
    assertThat(mcp.replayed()).isEqualTo(http.replayed()).isEqualTo(replayed);
    assertThat(mcp.body()).isEqualTo(http.body()).isEqualTo(Json.parse(body));
  }

  @Test
  void everyEngineOutcomeTheServerMapsIsClassifiedAlikeOverHttpAndMcp() {
    OperationRecord unknown = record(OperationState.UNKNOWN, Optional.empty());
    OperationRecord fenced =
        new OperationRecord(
            TenantId.of("acme"),
            KEY,
            Optional.empty(),
            OperationState.NOT_EXECUTED,
            Optional.empty(),
            Instant.parse("2026-01-01T00:00:00Z"),
            Optional.of(Instant.parse("2026-01-01T00:00:01Z")),
            Optional.empty());
    Map<ExecutionOutcome, String> rows =
        Map.of(
            new ExecutionOutcome.KeyReused("create-note"), "rejected idempotency-key-reused 422",
            new ExecutionOutcome.InProgress(RETRY_AFTER), "retry after 7 s",
            new ExecutionOutcome.OutcomeUnknown(unknown), "unknown",
            new ExecutionOutcome.NotExecuted(fenced), "rejected operation-not-executed 409",
            new ExecutionOutcome.InvalidParameters(
                    List.of(new dev.toolledger.core.schema.Violation("title", "is required"))),
                "rejected invalid-parameters 400",
            new ExecutionOutcome.UnknownTool("create-nte"), "rejected unknown-tool 404",
            new ExecutionOutcome.ToolUnavailable("connection refused", RETRY_AFTER),
                "retry after 7 s",
            new ExecutionOutcome.Busy(RETRY_AFTER), "retry after 7 s");
    for (Map.Entry<ExecutionOutcome, String> row : rows.entrySet()) {
      CallToolResult result = wire(ServerMcpResults.of(row.getKey(), KEY));
      assertThat(summary(McpAnswers.tool(KEY, result)))
          .as(row.getKey().kind())
          .isEqualTo(row.getValue());
    }
  }

  @Test
  void lookupAnswersAreFoundNotFoundRetriedOrUnavailableAlikeOverHttpAndMcp() {
    OperationRecord record =
        completed(new StoredResponse(201, "{\"id\":7,\"title\":\"groceries\",\"body\":\"\"}"));
    String operation = Json.write(OperationJson.of(record, List.of()));

    LookupResult.Found http =
        (LookupResult.Found) done(HttpSide.lookup(KEY, 200, Map.of(), operation));
    LookupResult.Found mcp =
        (LookupResult.Found) done(McpAnswers.lookup(KEY, wire(ServerMcpResults.operation(record))));
    assertThat(mcp).usingRecursiveComparison().isEqualTo(http);
    assertThat(mcp.response())
        .hasValue(new StoredResponse(201, "{\"id\":7,\"title\":\"groceries\",\"body\":\"\"}"));

    Problem notFound = Problem.of(ProblemType.NOT_FOUND, "no operation with this key");
    assertThat(done(HttpSide.lookup(KEY, 404, Map.of(), Json.write(notFound.toJson()))))
        .isEqualTo(new LookupResult.NotFound(KEY));
    assertThat(
            done(
                McpAnswers.lookup(KEY, wire(ServerMcpResults.problem(notFound, null, null, null)))))
        .isEqualTo(new LookupResult.NotFound(KEY));

    Problem busy = Problem.of(ProblemType.STORE_BUSY, "busy");
    assertThat(
            summaryOfLookup(
                HttpSide.lookup(KEY, 503, Map.of("Retry-After", "7"), Json.write(busy.toJson()))))
        .isEqualTo("retry after 7 s");
    assertThat(
            summaryOfLookup(
                McpAnswers.lookup(
                    KEY, wire(ServerMcpResults.problem(busy, null, null, RETRY_AFTER)))))
        .isEqualTo("retry after 7 s");

    Problem refused = Problem.of(ProblemType.UNAUTHORIZED, "no caller");
    assertThat(done(HttpSide.lookup(KEY, 401, Map.of(), Json.write(refused.toJson()))))
        .isInstanceOf(LookupResult.Unavailable.class);
    assertThat(
            done(McpAnswers.lookup(KEY, wire(ServerMcpResults.problem(refused, null, null, null)))))
        .isInstanceOf(LookupResult.Unavailable.class);
  }

  @Test
  void namesInMetaAreTheServersConventions() {
    assertThat(McpActionTransport.OPERATION_KEY).isEqualTo(McpConventions.OPERATION_KEY);
    assertThat(McpActionTransport.REPLAYED).isEqualTo(McpConventions.REPLAYED);
    assertThat(McpActionTransport.STATE).isEqualTo(McpConventions.STATE);
    assertThat(McpActionTransport.STATUS).isEqualTo(McpConventions.STATUS);
    assertThat(McpActionTransport.PROBLEM_TYPE).isEqualTo(McpConventions.PROBLEM_TYPE);
    assertThat(McpActionTransport.RETRY_AFTER_SECONDS)
        .isEqualTo(McpConventions.RETRY_AFTER_SECONDS);
    assertThat(McpActionTransport.GET_OPERATION).isEqualTo(McpConventions.GET_OPERATION);
  }

  // ---------------------------------------------------------------------------------------------

  /** The result as the client receives it: serialized and read back by the SDK's JSON mapper. */
  static CallToolResult wire(CallToolResult result) {
    try {
      return WIRE.readValue(WIRE.writeValueAsString(result), CallToolResult.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static String summary(AttemptResult<Outcome> result) {
    if (result instanceof AttemptResult.Retry<Outcome> retry) {
      return "retry" + retry.retryAfter().map(d -> " after " + d.toSeconds() + " s").orElse("");
    }
    Outcome outcome = ((AttemptResult.Done<Outcome>) result).value();
    if (outcome instanceof Outcome.Completed completed) {
      return "completed " + completed.status() + (completed.replayed() ? " replayed" : "");
    }
    if (outcome instanceof Outcome.Rejected rejected) {
      return "rejected "
          + rejected
              .problem()
              .knownType()
              .map(ProblemType::slug)
              .orElse(rejected.problem().type().toString())
          + " "
          + rejected.problem().status();
    }
    return "unknown";
  }

  private static String summaryOfLookup(AttemptResult<LookupResult> result) {
    if (result instanceof AttemptResult.Retry<LookupResult> retry) {
      return "retry" + retry.retryAfter().map(d -> " after " + d.toSeconds() + " s").orElse("");
    }
    return ((AttemptResult.Done<LookupResult>) result).value().getClass().getSimpleName();
  }

  private static <T> T done(AttemptResult<T> result) {
    assertThat(result).isInstanceOf(AttemptResult.Done.class);
    return ((AttemptResult.Done<T>) result).value();
  }

  private static OperationState stateFor(ProblemType type) {
    return switch (type) {
      case IN_PROGRESS -> OperationState.IN_PROGRESS;
      case OUTCOME_UNKNOWN -> OperationState.UNKNOWN;
      case NOT_EXECUTED -> OperationState.NOT_EXECUTED;
      default -> null;
    };
  }

  private static OperationRecord completed(StoredResponse response) {
    return record(OperationState.COMPLETED, Optional.of(response));
  }

  private static OperationRecord record(OperationState state, Optional<StoredResponse> response) {
    Instant created = Instant.parse("2026-01-01T00:00:00Z");
    return new OperationRecord(
        TenantId.of("acme"),
        KEY,
        Optional.of(new OperationIntent("create-note", "1", new Fingerprint("ab".repeat(32)))),
        state,
        response,
        created,
        state == OperationState.COMPLETED ? Optional.of(created.plusSeconds(1)) : Optional.empty(),
        Optional.of(created.plus(Duration.ofDays(7))));
  }
}
