package dev.toolledger.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The outcome a tool reports: an HTTP-style status and a JSON body. Whatever the tool returns is
 * recorded and replayed byte for byte to every retry with the same key, including a definitive
 * business error (a status of 400 or more after which the tool changed nothing).
 */
public record ToolResponse(int status, JsonNode body) {
  public ToolResponse {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException(
          "a tool response status must be 200 to 599, not " + status);
    }
    Objects.requireNonNull(body, "body");
  }

  public static ToolResponse of(int status, JsonNode body) {
    return new ToolResponse(status, body);
  }

  public boolean isSuccess() {
    return status < 400;
  }
}
