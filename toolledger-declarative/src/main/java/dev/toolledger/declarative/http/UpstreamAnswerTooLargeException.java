package dev.toolledger.declarative.http;

import java.io.IOException;

/**
 * The upstream answered with a body over {@link HttpTool#MAX_BODY_BYTES}: its outcome cannot be
 * recorded, so the effect is treated as uncertain (the engine looks it up, performs again with the
 * same key, or records {@code UNKNOWN}). Its class name is what the operation's history shows.
 */
public final class UpstreamAnswerTooLargeException extends IOException {
  private static final long serialVersionUID = 1L;

  UpstreamAnswerTooLargeException(int status) {
    super(
        "the upstream answered "
            + status
            + " with a body over "
            + HttpTool.MAX_BODY_BYTES
            + " bytes; its outcome cannot be recorded");
  }
}
