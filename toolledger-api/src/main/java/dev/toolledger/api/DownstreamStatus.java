package dev.toolledger.api;

import java.util.Objects;

/** What the downstream says about a downstream key, when asked by {@link ExternalTool#lookup}. */
public sealed interface DownstreamStatus {

  /** The effect happened; this is its outcome. */
  record Found(ToolResponse response) implements DownstreamStatus {
    public Found {
      Objects.requireNonNull(response, "response");
    }
  }

  /** The effect did not happen and will not happen for this key. */
  record Absent() implements DownstreamStatus {}

  /** The downstream has the key but has not finished; ask again later. */
  record Pending() implements DownstreamStatus {}
}
