package dev.toolledger.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The retry table: which answers are final, which are retried, which are unknown. */
class HttpAnswersTest {
  private static final OperationKey KEY = OperationKey.of("k");
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-10-14T06:00:00Z"), ZoneOffset.UTC);

  private static Function<String, Optional<String>> headers(String... pairs) {
    Map<String, String> map = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return name -> Optional.ofNullable(map.get(name));
  }

  private static String problem(ProblemType type) {
    return Json.write(Problem.of(type, "detail").toJson());
  }

  private static AttemptResult<Outcome> tool(int status, String body, String... headers) {
    return HttpAnswers.tool(KEY, status, headers(headers), body, CLOCK);
  }

  @Test
  void anyAnswerWithTheReplayedHeaderIsARecordedOutcomeWhateverItsStatus() {
    assertThat(tool(201, "{\"id\":1}", "Idempotent-Replayed", "false"))
        .isEqualTo(
            AttemptResult.done(new Outcome.Completed(KEY, 201, Json.parse("{\"id\":1}"), false)));
    assertThat(tool(409, "{\"type\":\"x\"}", "Idempotent-Replayed", "true"))
        .isEqualTo(
            AttemptResult.done(
                new Outcome.Completed(KEY, 409, Json.parse("{\"type\":\"x\"}"), true)));
    assertThat(tool(503, "{}", "Idempotent-Replayed", "true"))
        .isInstanceOf(AttemptResult.Done.class);
    assertThat(tool(500, problem(ProblemType.TOOL_FAILED), "Idempotent-Replayed", "false"))
        .isInstanceOf(AttemptResult.Done.class);
  }

  @Test
  void definitiveRefusalsAreRejectedAndNeverRetried() {
    for (ProblemType type :
        new ProblemType[] {
          ProblemType.MISSING_KEY,
          ProblemType.INVALID_KEY,
          ProblemType.MALFORMED_JSON,
          ProblemType.INVALID_PARAMETERS,
          ProblemType.UNAUTHORIZED,
          ProblemType.FORBIDDEN,
          ProblemType.UNKNOWN_TOOL,
          ProblemType.NOT_FOUND,
          ProblemType.METHOD_NOT_ALLOWED,
          ProblemType.PAYLOAD_TOO_LARGE,
          ProblemType.UNSUPPORTED_MEDIA_TYPE,
          ProblemType.KEY_REUSED,
          ProblemType.NOT_EXECUTED,
          ProblemType.RESPONSE_TOO_LARGE
        }) {
      AttemptResult<Outcome> result = tool(type.status(), problem(type));

      assertThat(result).as(type.slug()).isInstanceOf(AttemptResult.Done.class);
      Outcome outcome = ((AttemptResult.Done<Outcome>) result).value();
      assertThat(outcome).as(type.slug()).isInstanceOf(Outcome.Rejected.class);
      assertThat(((Outcome.Rejected) outcome).problem().knownType()).contains(type);
    }
  }

  @Test
  void errorsThatRecordedNothingAreRetriedWithTheServersRetryAfter() {
    assertThat(tool(409, problem(ProblemType.IN_PROGRESS), "Retry-After", "3"))
        .isEqualTo(
            AttemptResult.retryAfter(
                "HTTP 409 operation-in-progress", Optional.of(Duration.ofSeconds(3))));
    assertThat(
            tool(
                503,
                problem(ProblemType.STORE_BUSY),
                "Retry-After",
                "Wed, 14 Oct 2026 06:00:05 GMT"))
        .isEqualTo(
            AttemptResult.retryAfter("HTTP 503 ledger-busy", Optional.of(Duration.ofSeconds(5))));
    assertThat(tool(500, problem(ProblemType.TOOL_FAILED)))
        .isEqualTo(AttemptResult.retry("HTTP 500 tool-failed"));
    assertThat(tool(500, problem(ProblemType.INTERNAL))).isInstanceOf(AttemptResult.Retry.class);
    assertThat(tool(502, "<html>Bad gateway</html>")).isEqualTo(AttemptResult.retry("HTTP 502"));
    assertThat(tool(504, "")).isInstanceOf(AttemptResult.Retry.class);
    assertThat(tool(429, problem(ProblemType.RATE_LIMITED), "Retry-After", "2"))
        .isEqualTo(
            AttemptResult.retryAfter("HTTP 429 rate-limited", Optional.of(Duration.ofSeconds(2))));
    assertThat(tool(408, "")).isInstanceOf(AttemptResult.Retry.class);
  }

  @Test
  void answersThatLeaveTheOutcomeOpenAreUnknownAndNotRetried() {
    for (var answer :
        Map.of(
                409, problem(ProblemType.OUTCOME_UNKNOWN),
                410, problem(ProblemType.EXPIRED),
                200, "{\"id\":1}")
            .entrySet()) {
      AttemptResult<Outcome> result = tool(answer.getKey(), answer.getValue());

      assertThat(result).as("HTTP %d", answer.getKey()).isInstanceOf(AttemptResult.Done.class);
      assertThat(((AttemptResult.Done<Outcome>) result).value())
          .as("HTTP %d", answer.getKey())
          .isInstanceOf(Outcome.Unknown.class);
    }
  }

  @Test
  void problemWithoutADocumentKeepsTheStatusButNotTheBodyText() {
    Outcome outcome =
        ((AttemptResult.Done<Outcome>) tool(403, "<html>echo: secret-param</html>")).value();

    ProblemDetails problem = ((Outcome.Rejected) outcome).problem();
    assertThat(problem.status()).isEqualTo(403);
    assertThat(problem.type()).isEqualTo(ProblemDetails.ABOUT_BLANK);
    assertThat(problem.document().toString()).doesNotContain("secret-param");
  }

  @Test
  void retryAfterReadsSecondsAndHttpDatesAndIgnoresNonsense() {
    assertThat(HttpAnswers.retryAfter(" 7 ", CLOCK)).contains(Duration.ofSeconds(7));
    assertThat(HttpAnswers.retryAfter("0", CLOCK)).contains(Duration.ZERO);
    assertThat(HttpAnswers.retryAfter("Wed, 14 Oct 2026 06:01:00 GMT", CLOCK))
        .contains(Duration.ofMinutes(1));
    assertThat(HttpAnswers.retryAfter("Wed, 14 Oct 2026 05:00:00 GMT", CLOCK))
        .contains(Duration.ZERO);
    assertThat(HttpAnswers.retryAfter("-1", CLOCK)).isEmpty();
    assertThat(HttpAnswers.retryAfter("soon", CLOCK)).isEmpty();
    assertThat(HttpAnswers.retryAfter("99999999999999999999999", CLOCK).orElseThrow())
        .isGreaterThan(Duration.ofDays(365 * 100));
  }

  @Test
  void lookupAnswersAreFoundNotFoundRetriedOrUnavailable() {
    String completed =
        "{\"key\":\"k\",\"tool\":\"create-note\",\"toolVersion\":\"1\",\"state\":\"COMPLETED\","
            + "\"createdAt\":\"2026-10-14T06:00:00Z\",\"completedAt\":\"2026-10-14T06:00:01Z\","
            + "\"expiresAt\":\"2026-10-21T06:00:01Z\","
            + "\"response\":{\"status\":201,\"body\":{\"id\":1}}}";
    LookupResult found =
        ((AttemptResult.Done<LookupResult>)
                HttpAnswers.lookup(KEY, 200, headers(), completed, CLOCK))
            .value();
    assertThat(found).isInstanceOf(LookupResult.Found.class);
    LookupResult.Found record = (LookupResult.Found) found;
    assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(record.response().orElseThrow().status()).isEqualTo(201);
    assertThat(Json.parse(record.response().orElseThrow().body()))
        .isEqualTo(Json.parse("{\"id\":1}"));
    assertThat(record.expiresAt()).contains(Instant.parse("2026-10-21T06:00:01Z"));

    String fence =
        "{\"key\":\"k\",\"tool\":null,\"state\":\"NOT_EXECUTED\","
            + "\"createdAt\":\"2026-10-14T06:00:00Z\",\"completedAt\":null,\"expiresAt\":null,"
            + "\"response\":null}";
    LookupResult fenced =
        ((AttemptResult.Done<LookupResult>) HttpAnswers.lookup(KEY, 200, headers(), fence, CLOCK))
            .value();
    assertThat(((LookupResult.Found) fenced).tool()).isEmpty();

    assertThat(HttpAnswers.lookup(KEY, 404, headers(), problem(ProblemType.NOT_FOUND), CLOCK))
        .isEqualTo(AttemptResult.done(new LookupResult.NotFound(KEY)));
    assertThat(
            HttpAnswers.lookup(
                KEY, 503, headers("Retry-After", "1"), problem(ProblemType.STORE_BUSY), CLOCK))
        .isInstanceOf(AttemptResult.Retry.class);
    assertThat(HttpAnswers.lookup(KEY, 401, headers(), problem(ProblemType.UNAUTHORIZED), CLOCK))
        .isEqualTo(
            AttemptResult.done(
                new LookupResult.Unavailable(
                    KEY, "the lookup was refused: HTTP 401 unauthorized")));
    assertThat(HttpAnswers.lookup(KEY, 200, headers(), "{\"state\":\"NEW\"}", CLOCK))
        .isInstanceOf(AttemptResult.Done.class)
        .extracting(r -> ((AttemptResult.Done<LookupResult>) r).value())
        .isInstanceOf(LookupResult.Unavailable.class);
  }

  @Test
  void keysAndToolNamesAreEncodedForTheirHeaderAndPath() {
    assertThat(HttpTransport.structuredString("abc-_09")).isEqualTo("\"abc-_09\"");
    assertThat(HttpTransport.structuredString("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    assertThat(OperationKey.fromHeader(HttpTransport.structuredString("a\"b\\c")).value())
        .isEqualTo("a\"b\\c");
    assertThat(HttpTransport.encodeSegment("Az09-._~")).isEqualTo("Az09-._~");
    assertThat(HttpTransport.encodeSegment("a/b%c d")).isEqualTo("a%2Fb%25c%20d");
    assertThat(HttpTransport.encodeSegment("..")).isEqualTo("%2E%2E");
  }
}
