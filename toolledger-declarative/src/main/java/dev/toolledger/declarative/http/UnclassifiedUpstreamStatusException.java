package dev.toolledger.declarative.http;

import java.io.IOException;

/**
 * The upstream answered with a status that none of the tool's outcome classes contains (a 500, a
 * redirect, a status outside 200..599): nobody can tell from it whether the effect happened. Its
 * class name is what the operation's history shows.
 */
public final class UnclassifiedUpstreamStatusException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int status;

  UnclassifiedUpstreamStatusException(int status) {
    super(
        "the upstream answered "
            + status
            + ", which is in no outcome class of the tool; the effect may or may not have happened");
    this.status = status;
  }

  public int status() {
    return status;
  }
}
