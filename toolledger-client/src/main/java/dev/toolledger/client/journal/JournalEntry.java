package dev.toolledger.client.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.StoredResponse;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One journaled action with its operation key and last known status.
 *
 * @param response the recorded response; present exactly when the status is {@link
 *     ActionStatus#COMPLETED}
 * @param problem the RFC 9457 problem document; present exactly when the status is {@link
 *     ActionStatus#REJECTED}
 * @param recordedAt when the action was first recorded (its key minted)
 * @param updatedAt when its status last changed
 */
public record JournalEntry(
    OperationKey key,
    Action action,
    ActionStatus status,
    Optional<StoredResponse> response,
    Optional<JsonNode> problem,
    Instant recordedAt,
    Instant updatedAt) {

  public JournalEntry {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(problem, "problem");
    Objects.requireNonNull(recordedAt, "recordedAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if ((status == ActionStatus.COMPLETED) != response.isPresent()) {
      throw new IllegalArgumentException("a response is kept exactly for COMPLETED actions");
    }
    if ((status == ActionStatus.REJECTED) != problem.isPresent()) {
      throw new IllegalArgumentException("a problem is kept exactly for REJECTED actions");
    }
    problem = problem.map(JsonNode::deepCopy);
  }

  @Override
  public Optional<JsonNode> problem() {
    return problem.map(JsonNode::deepCopy);
  }

  public String workflowId() {
    return action.workflowId();
  }

  public String stepId() {
    return action.stepId();
  }

  /** Without parameters, response or the raw key. */
  @Override
  public String toString() {
    return "JournalEntry["
        + key
        + ", workflowId="
        + action.workflowId()
        + ", stepId="
        + action.stepId()
        + ", tool="
        + action.tool()
        + ", status="
        + status
        + "]";
  }
}
