package dev.toolledger.springai;

import dev.toolledger.client.AgentRun;
import dev.toolledger.client.ToolLedgerClient;
import java.util.IdentityHashMap;

/**
 * The pass over a run that one {@code ChatClient} request makes: made by {@link
 * ToolLedgerTools#toolContext(String)}, shared through the tool context by every callback the
 * request executes, so that the calls of the request take the run's positions in order, whatever
 * tool they call. One {@link AgentRun} per client (and so per journal).
 */
final class RunPass {
  private final IdentityHashMap<ToolLedgerClient, AgentRun> runs = new IdentityHashMap<>();

  synchronized AgentRun run(ToolLedgerClient client, String workflowId) {
    AgentRun run = runs.get(client);
    if (run == null) {
      run = AgentRun.start(client, workflowId);
      runs.put(client, run);
    } else if (!run.runId().equals(workflowId)) {
      throw new IllegalStateException(
          "one tool context serves one workflow: this one was started for another workflow id;"
              + " use ToolLedgerTools.toolContext(workflowId) for each ChatClient request");
    }
    return run;
  }

  @Override
  public String toString() {
    return "RunPass";
  }
}
