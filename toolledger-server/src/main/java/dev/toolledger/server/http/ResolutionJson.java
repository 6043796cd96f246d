package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.StoredResponse;

/**
 * The body of {@code POST /v1/operations/{key}/resolve}.
 *
 * <ul>
 *   <li>empty or {@code {}}: an inquiry ("I give up on this key": fence it if never seen, else
 *       report it);
 *   <li>{@code {"resolution": "NOT_EXECUTED", "reason": "..."}};
 *   <li>{@code {"resolution": "COMPLETED", "response": {"status": 201, "body": {...}}, "reason":
 *       "..."}}: the recorded outcome that retries will replay.
 * </ul>
 */
public final class ResolutionJson {
  private ResolutionJson() {}

  /**
   * Whether the body is an inquiry (empty, blank or an empty object {@code {}}), judged from its
   * characters alone, without parsing it: every other body asks for an explicit resolution, valid
   * or not. This decides the scope a request needs before anything in it is validated.
   */
  public static boolean isInquiry(byte[] body) {
    String text = new String(body, java.nio.charset.StandardCharsets.UTF_8).strip();
    return text.isEmpty()
        || (text.startsWith("{")
            && text.endsWith("}")
            && text.substring(1, text.length() - 1).isBlank());
  }

  /** A JSON integer as JSON Schema's {@code integer} means it: {@code 201} or {@code 201.0}. */
  private static boolean isInteger(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.canConvertToInt();
    }
    return node.isFloatingPointNumber()
        && node.decimalValue().stripTrailingZeros().scale() <= 0
        && node.canConvertToInt();
  }

  /**
   * The resolution a body asks for.
   *
   * @throws dev.toolledger.protocol.MalformedJsonException when it is not one JSON document
   * @throws IllegalArgumentException when it is JSON but not a resolution
   */
  public static Resolution parse(byte[] body) {
    if (body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
      return new Resolution.Inquiry();
    }
    JsonNode json = Json.parse(body);
    if (!json.isObject()) {
      throw new IllegalArgumentException("the body must be a JSON object");
    }
    if (!json.has("resolution")) {
      if (json.size() > 0) {
        throw new IllegalArgumentException(
            "name the resolution (COMPLETED or NOT_EXECUTED), or send {} to inquire");
      }
      return new Resolution.Inquiry();
    }
    JsonNode reasonNode = json.path("reason");
    if (!reasonNode.isMissingNode() && !reasonNode.isTextual()) {
      throw new IllegalArgumentException("the reason must be a string");
    }
    String reason = reasonNode.asText("");
    if (reason.isBlank()) {
      throw new IllegalArgumentException("an explicit resolution needs a reason");
    }
    // Characters as JSON Schema's maxLength counts them (code points), as the OpenAPI document
    // says.
    if (reason.codePointCount(0, reason.length()) > 500) {
      throw new IllegalArgumentException("the reason is longer than 500 characters");
    }
    return switch (json.path("resolution").asText()) {
      case "NOT_EXECUTED" -> new Resolution.MarkNotExecuted(reason);
      case "COMPLETED" -> {
        JsonNode response = json.path("response");
        if (!isInteger(response.path("status")) || !response.has("body")) {
          throw new IllegalArgumentException(
              "a COMPLETED resolution needs the outcome to replay: {\"status\", \"body\"}");
        }
        int status = response.get("status").asInt();
        if (status < 200 || status > 599) {
          throw new IllegalArgumentException("response.status must be 200 to 599");
        }
        yield new Resolution.MarkCompleted(
            new StoredResponse(status, Json.write(response.get("body"))), reason);
      }
      default -> throw new IllegalArgumentException("resolution must be COMPLETED or NOT_EXECUTED");
    };
  }
}
