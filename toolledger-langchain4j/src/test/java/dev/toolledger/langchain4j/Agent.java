package dev.toolledger.langchain4j;

import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.UserMessage;

/** The AI Service the tests drive: one user request per invocation, named by its run id. */
interface Agent {
  Result<String> chat(@UserMessage String request, InvocationParameters run);

  static InvocationParameters run(String runId) {
    return InvocationParameters.from(ToolLedgerToolProvider.RUN_ID, runId);
  }
}
