package dev.toolledger.protocol;

import java.util.Objects;

/**
 * A recorded outcome: the status and the exact JSON text that was sent the first time, replayed
 * unchanged to every later retry.
 */
public record StoredResponse(int status, String body) {
  public StoredResponse {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException("a stored status must be 200 to 599, not " + status);
    }
    Objects.requireNonNull(body, "body");
  }
}
