package dev.toolledger.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * An RFC 9457 problem detail: a stable type, a status, a short title, a detail that says what to
 * do, and optional extension members (for example {@code errors} naming the fields at fault).
 */
@NotApi
public record Problem(ProblemType type, String detail, ObjectNode extensions) {
  public Problem {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(detail, "detail");
    extensions = extensions == null ? Json.object() : extensions.deepCopy();
  }

  public static Problem of(ProblemType type, String detail) {
    return new Problem(type, detail, null);
  }

  public Problem with(String member, JsonNode value) {
    ObjectNode copy = extensions.deepCopy();
    copy.set(member, value);
    return new Problem(type, detail, copy);
  }

  public int status() {
    return type.status();
  }

  /** The {@code application/problem+json} document. */
  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("type", type.uri().toString());
    json.put("title", type.title());
    json.put("status", type.status());
    json.put("detail", detail);
    json.setAll(extensions);
    return json;
  }

  @Override
  public ObjectNode extensions() {
    return extensions.deepCopy();
  }
}
