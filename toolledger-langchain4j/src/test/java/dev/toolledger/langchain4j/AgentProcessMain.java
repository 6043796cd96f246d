package dev.toolledger.langchain4j;

import static dev.toolledger.langchain4j.ScriptedChatModel.call;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.tool.ToolExecution;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.retry.RetryPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * An agent host as a process of its own, for {@link AgentRestartTest}: a LangChain4j AI Service
 * with a scripted model that asks for one note per title given, one after the other, and then
 * answers with what the tool returned. It retries patiently (the test stops it while it retries),
 * and prints every tool result the model was given.
 *
 * <p>Arguments: journal file, server base URI, run id, then the titles. The token comes from the
 * environment ({@code TOOLLEDGER_TOKEN}), never from the command line.
 */
public final class AgentProcessMain {
  static final String TITLE = "Board minutes";

  private AgentProcessMain() {}

  public static void main(String[] args) {
    Path journalFile = Path.of(args[0]);
    URI server = URI.create(args[1]);
    String runId = args[2];
    String token = System.getenv("TOOLLEDGER_TOKEN");
    try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(server)
              .token(token)
              .journal(journal)
              .retryPolicy(
                  RetryPolicy.builder()
                      .maxAttempts(100_000)
                      .deadline(Duration.ofMinutes(2))
                      .backoff(Duration.ofMillis(5), Duration.ofMillis(50))
                      .budget(1_000_000, 0, 1)
                      .build())
              .build();
      List<Function<ChatRequest, AiMessage>> turns = new ArrayList<>();
      for (String title : Arrays.asList(args).subList(3, args.length)) {
        turns.add(call("create-note", "{\"title\":\"" + title + "\"}"));
      }
      turns.add(
          request -> {
            for (ChatMessage message : request.messages()) {
              if (message instanceof ToolExecutionResultMessage seen) {
                System.out.println("model was given: " + seen.text());
              }
            }
            return AiMessage.from("The notes are there.");
          });
      @SuppressWarnings("unchecked")
      ScriptedChatModel model = new ScriptedChatModel(turns.toArray(Function[]::new));
      Agent agent =
          AiServices.builder(Agent.class)
              .chatModel(model)
              .toolProvider(
                  ToolLedgerToolProvider.builder()
                      .client(client)
                      .tools(ToolLedgerCatalog.fetch(server, token))
                      .build())
              .build();
      System.out.println("agent started, run " + runId);
      Result<String> result = agent.chat("Create two notes titled " + TITLE, Agent.run(runId));
      for (ToolExecution execution : result.toolExecutions()) {
        System.out.println("tool call: " + execution.resultObject());
      }
      System.out.println("answer: " + result.content());
    }
  }
}
