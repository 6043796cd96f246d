package dev.toolledger.examples.langchain4j;

import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.UserMessage;

/**
 * The agent's AI Service. The host passes the run id of each user request, as {@code
 * InvocationParameters.from(ToolLedgerToolProvider.RUN_ID, requestId)}.
 */
public interface NoteAgent {
  Result<String> chat(@UserMessage String request, InvocationParameters run);
}
