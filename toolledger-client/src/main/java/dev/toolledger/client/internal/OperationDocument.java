package dev.toolledger.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.LookupResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.NotApi;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Optional;

/**
 * Reads the operation document the server answers a lookup with: the body of {@code GET
 * /v1/operations/{key}} over HTTP and the result of {@code get-operation} over MCP are the same
 * document, so both transports read it here.
 */
@NotApi
public final class OperationDocument {
  /** What a lookup result says when the document cannot be read. */
  public static final String UNREADABLE = "the lookup answer could not be read";

  private OperationDocument() {}

  /**
   * The record the document describes, or {@link LookupResult.Unavailable} when it is not an
   * operation document (not an object, an unknown state, a response on an operation that is not
   * completed or none on one that is, a timestamp that is not ISO-8601): a document the client
   * cannot read says nothing about the key.
   */
  public static LookupResult read(OperationKey key, JsonNode json) {
    try {
      return found(key, json);
    } catch (IllegalArgumentException | DateTimeException e) {
      return new LookupResult.Unavailable(key, UNREADABLE);
    }
  }

  private static LookupResult.Found found(OperationKey key, JsonNode json) {
    if (!json.isObject()) {
      throw new IllegalArgumentException("not an object");
    }
    OperationState state = OperationState.valueOf(json.path("state").asText());
    Optional<StoredResponse> response = Optional.empty();
    JsonNode recorded = json.get("response");
    if (recorded != null && recorded.isObject()) {
      response =
          Optional.of(
              new StoredResponse(
                  recorded.path("status").asInt(), Json.write(recorded.path("body"))));
    }
    if ((state == OperationState.COMPLETED) != response.isPresent()) {
      throw new IllegalArgumentException("a response belongs to COMPLETED operations only");
    }
    return new LookupResult.Found(
        key,
        text(json, "tool"),
        state,
        response,
        Instant.parse(json.path("createdAt").asText()),
        text(json, "completedAt").map(Instant::parse),
        text(json, "expiresAt").map(Instant::parse));
  }

  private static Optional<String> text(JsonNode json, String member) {
    JsonNode node = json.get(member);
    return node != null && node.isTextual() ? Optional.of(node.textValue()) : Optional.empty();
  }
}
