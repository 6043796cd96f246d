package dev.toolledger.examples.langchain4j;

import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.Result;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.langchain4j.ToolLedgerCatalog;
import dev.toolledger.langchain4j.ToolLedgerToolProvider;
import java.net.URI;
import java.nio.file.Path;

/**
 * What an agent process holds: its journal (a SQLite file that outlives the process), a ToolLedger
 * client on it, and a LangChain4j AI Service whose tools are ToolLedger's. Closing it is the
 * process stopping; starting another on the same journal file is the process starting again.
 */
final class AgentHost implements AutoCloseable {
  private final ActionJournal journal;
  private final NoteAgent agent;

  private AgentHost(ActionJournal journal, NoteAgent agent) {
    this.journal = journal;
    this.agent = agent;
  }

  static AgentHost start(
      Path journalFile, URI server, String token, RetryPolicy retries, ChatModel model) {
    ActionJournal journal = ActionJournal.sqlite(journalFile);
    try {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(server)
              .token(token)
              .journal(journal)
              .retryPolicy(retries) // the one retrying layer
              .build();
      NoteAgent agent =
          AiServices.builder(NoteAgent.class)
              .chatModel(model)
              .toolProvider(
                  ToolLedgerToolProvider.builder()
                      .client(client)
                      .tools(ToolLedgerCatalog.fetch(server, token))
                      .build())
              .build();
      return new AgentHost(journal, agent);
    } catch (RuntimeException e) {
      journal.close();
      throw e;
    }
  }

  /** One user request, as one run of the agent named by the host's request id. */
  Result<String> handle(String requestId, String request) {
    return agent.chat(request, InvocationParameters.from(ToolLedgerToolProvider.RUN_ID, requestId));
  }

  ActionJournal journal() {
    return journal;
  }

  @Override
  public void close() {
    journal.close();
  }
}
