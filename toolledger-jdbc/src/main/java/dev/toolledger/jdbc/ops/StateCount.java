package dev.toolledger.jdbc.ops;

import dev.toolledger.protocol.OperationState;
import java.util.Objects;
import java.util.Optional;

/**
 * How many operations of a tool are in a state.
 *
 * @param tool absent for keys fenced before any request named a tool
 */
public record StateCount(OperationState state, Optional<String> tool, long count) {
  public StateCount {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(tool, "tool");
  }
}
