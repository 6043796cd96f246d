package dev.toolledger.springai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;

/**
 * One tool call of the model as a {@link StepIdentity} sees it.
 *
 * @param workflowId the run's id, from the tool context ({@link ToolLedgerTools#WORKFLOW_ID})
 * @param tool the ToolLedger tool the model called
 * @param arguments the model's arguments, parsed
 * @param toolContext the host's tool context entries (without Spring AI's tool-call history)
 */
public record ToolInvocation(
    String workflowId, String tool, JsonNode arguments, Map<String, Object> toolContext) {
  public ToolInvocation {
    Objects.requireNonNull(workflowId, "workflowId");
    Objects.requireNonNull(tool, "tool");
    arguments = Objects.requireNonNull(arguments, "arguments").deepCopy();
    toolContext = Map.copyOf(toolContext);
  }

  @Override
  public JsonNode arguments() {
    return arguments.deepCopy();
  }

  /** Without the arguments, which may be sensitive. */
  @Override
  public String toString() {
    return "ToolInvocation[" + workflowId + ", " + tool + "]";
  }
}
