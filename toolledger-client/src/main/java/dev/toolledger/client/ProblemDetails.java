package dev.toolledger.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * An RFC 9457 problem document as received. Unlike core's {@link Problem} it also holds problems
 * whose type is not one of ToolLedger's (a gateway's, or a document-less error page).
 *
 * @param type the {@code type} URI, {@code about:blank} when absent or unreadable
 * @param status the HTTP status of the answer
 * @param title the {@code title} member, or empty
 * @param detail the {@code detail} member, or empty
 * @param document the whole document (with any extension members, e.g. {@code errors})
 */
public record ProblemDetails(
    URI type, int status, String title, String detail, ObjectNode document) {
  public static final URI ABOUT_BLANK = URI.create("about:blank");

  public ProblemDetails {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(detail, "detail");
    Objects.requireNonNull(document, "document");
    document = document.deepCopy();
  }

  @Override
  public ObjectNode document() {
    return document.deepCopy();
  }

  /** The ToolLedger problem type, when {@link #type()} is one. */
  public Optional<ProblemType> knownType() {
    return ProblemType.fromUri(type.toString());
  }

  public boolean is(ProblemType problemType) {
    return problemType.uri().equals(type);
  }

  /** A problem of one of ToolLedger's types, made on the client side. */
  public static ProblemDetails of(ProblemType type, String detail) {
    return fromDocument(Problem.of(type, detail).toJson(), type.status());
  }

  /**
   * Reads a problem document; {@code status} is the answer's HTTP status and wins over the
   * document's own {@code status} member. A body that is not a JSON object becomes a problem of
   * type {@code about:blank} whose detail says so (its text is not kept: it may echo input).
   */
  public static ProblemDetails parse(int status, String body) {
    JsonNode json;
    try {
      json = body == null || body.isBlank() ? null : Json.parse(body);
    } catch (MalformedJsonException e) {
      json = null;
    }
    if (json == null || !json.isObject()) {
      ObjectNode document = Json.object();
      document.put("type", ABOUT_BLANK.toString());
      document.put("title", "HTTP " + status);
      document.put("status", status);
      document.put("detail", "the server answered HTTP " + status + " without a problem document");
      return fromDocument(document, status);
    }
    return fromDocument(json, status);
  }

  /** Rebuilds a problem from a stored document (as the journal keeps it). */
  public static ProblemDetails fromDocument(JsonNode json, int status) {
    ObjectNode document = json.isObject() ? (ObjectNode) json.deepCopy() : Json.object();
    URI type = ABOUT_BLANK;
    JsonNode typeNode = document.get("type");
    if (typeNode != null && typeNode.isTextual()) {
      try {
        type = URI.create(typeNode.textValue());
      } catch (IllegalArgumentException e) {
        type = ABOUT_BLANK;
      }
    }
    return new ProblemDetails(
        type, status, text(document, "title"), text(document, "detail"), document);
  }

  /** Rebuilds a problem from a stored document, taking the status from its {@code status}. */
  public static ProblemDetails fromDocument(JsonNode json) {
    return fromDocument(json, json.path("status").asInt(0));
  }

  private static String text(JsonNode document, String member) {
    JsonNode node = document.get(member);
    return node != null && node.isTextual() ? node.textValue() : "";
  }

  /** Type, status and title only: the detail may quote input. */
  @Override
  public String toString() {
    return "ProblemDetails[type=" + type + ", status=" + status + ", title=" + title + "]";
  }
}
