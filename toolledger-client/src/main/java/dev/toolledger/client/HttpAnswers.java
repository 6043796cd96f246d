package dev.toolledger.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.toolledger.client.internal.OperationDocument;
import dev.toolledger.client.internal.ProblemOutcomes;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.function.Function;

/**
 * What an HTTP answer of the ToolLedger API means for the caller: the one place that decides what
 * is retried. A pure function of status, headers and body, so the table can be tested on its own.
 *
 * <p>For {@code POST /v1/tools/{tool}}:
 *
 * <ul>
 *   <li>Any answer with {@code Idempotent-Replayed} is a recorded outcome: {@link
 *       Outcome.Completed}, final, whatever its status.
 *   <li>Retried (same key): {@code 409 operation-in-progress}, {@code 408}, {@code 429}, {@code
 *       503} and every other 5xx without the header (a tool failure rolled back, an internal error,
 *       a gateway). They recorded nothing, or the retry replays what was recorded.
 *   <li>{@link Outcome.Unknown}, not retried: {@code 409 outcome-unknown} (the server will not
 *       execute the key again and does not know its effect), {@code 410 operation-expired}, and a
 *       2xx without the header (not a ToolLedger outcome, so nothing is known).
 *   <li>{@link Outcome.Rejected}: {@code 409 operation-not-executed}, {@code 500
 *       response-too-large} (the tool's answer is too large to record: the same request fails the
 *       same way) and every other 3xx/4xx (400, 401, 403, 404, 405, 413, 415, 422, ...).
 * </ul>
 */
final class HttpAnswers {
  static final String REPLAYED = "Idempotent-Replayed";

  private HttpAnswers() {}

  static AttemptResult<Outcome> tool(
      OperationKey key,
      int status,
      Function<String, Optional<String>> header,
      String body,
      Clock clock) {
    Optional<String> replayed = header.apply(REPLAYED);
    if (replayed.isPresent()) {
      return AttemptResult.done(
          new Outcome.Completed(
              key, status, parseBody(body), replayed.get().strip().equalsIgnoreCase("true")));
    }
    return ProblemOutcomes.classify(
        key,
        ProblemDetails.parse(status, body),
        header.apply("Retry-After").flatMap(v -> retryAfter(v, clock)),
        "HTTP",
        "HTTP "
            + status
            + " without Idempotent-Replayed is not a recorded ToolLedger outcome; check the"
            + " base URI");
  }

  static AttemptResult<LookupResult> lookup(
      OperationKey key,
      int status,
      Function<String, Optional<String>> header,
      String body,
      Clock clock) {
    if (status == 200) {
      try {
        return AttemptResult.done(OperationDocument.read(key, Json.parse(body)));
      } catch (MalformedJsonException e) {
        return AttemptResult.done(new LookupResult.Unavailable(key, OperationDocument.UNREADABLE));
      }
    }
    if (status == 404) {
      return AttemptResult.done(new LookupResult.NotFound(key));
    }
    Optional<ProblemType> type = ProblemDetails.parse(status, body).knownType();
    String what = "HTTP " + status + type.map(t -> " " + t.slug()).orElse("");
    if (status == 408 || status == 429 || status >= 500) {
      return AttemptResult.retryAfter(
          what, header.apply("Retry-After").flatMap(v -> retryAfter(v, clock)));
    }
    return AttemptResult.done(new LookupResult.Unavailable(key, "the lookup was refused: " + what));
  }

  /** The recorded body as JSON; a body that is not JSON is kept as a string rather than lost. */
  static JsonNode parseBody(String body) {
    try {
      return Json.parse(body);
    } catch (MalformedJsonException e) {
      return TextNode.valueOf(body == null ? "" : body);
    }
  }

  /**
   * A {@code Retry-After} value (RFC 9110 section 10.2.3): delay-seconds, or an HTTP-date counted
   * from {@code clock}. Empty when it is neither; a date in the past is zero.
   */
  static Optional<Duration> retryAfter(String value, Clock clock) {
    String v = value.strip();
    if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
      } catch (NumberFormatException e) {
        return Optional.of(Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L));
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration until = Duration.between(clock.instant(), at);
      return Optional.of(until.isNegative() ? Duration.ZERO : until);
    } catch (DateTimeException e) {
      return Optional.empty();
    }
  }
}
