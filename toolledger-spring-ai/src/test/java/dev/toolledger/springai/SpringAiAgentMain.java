package dev.toolledger.springai;

import static dev.toolledger.springai.ScriptedChatModel.callTool;
import static dev.toolledger.springai.ScriptedChatModel.reportToolResult;

import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.retry.RetryPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Spring AI agent as its own process, for {@link AgentRestartTest}: it runs one turn of a
 * workflow in which the scripted model asks for {@code create-note} once per title given, one after
 * the other, with a patient retry policy, and prints everything the model was told. The first run
 * is killed while it retries; the second is started with the same journal and the same workflow,
 * and a model that asks again under new tool-call ids, as a real model does.
 *
 * <p>Arguments: journal file, server base URI, workflow id, a prefix for the model's tool-call ids,
 * then the titles. The token comes from the environment ({@code TOOLLEDGER_TOKEN}), never from the
 * command line.
 */
public final class SpringAiAgentMain {

  private SpringAiAgentMain() {}

  public static void main(String[] args) {
    Path journalFile = Path.of(args[0]);
    URI base = URI.create(args[1]);
    String workflow = args[2];
    String toolCallPrefix = args[3];
    List<String> titles = Arrays.asList(args).subList(4, args.length);
    String token = System.getenv("TOOLLEDGER_TOKEN");
    try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(base)
              .token(token)
              .journal(journal)
              .retryPolicy(
                  RetryPolicy.builder()
                      .maxAttempts(100_000)
                      .deadline(Duration.ofMinutes(5))
                      .backoff(Duration.ofMillis(5), Duration.ofMillis(50))
                      .budget(1_000_000, 0, 1)
                      .build())
              .build();
      List<ScriptedChatModel.Turn> turns = new ArrayList<>();
      for (int i = 0; i < titles.size(); i++) {
        turns.add(
            callTool(
                toolCallPrefix + (i + 1),
                "create-note",
                "{\"title\":\"" + titles.get(i) + "\",\"body\":\"milk, eggs\"}"));
      }
      turns.add(reportToolResult());
      ScriptedChatModel model = new ScriptedChatModel(turns.toArray(ScriptedChatModel.Turn[]::new));
      Agent agent = new Agent(model, ToolLedgerTools.builder(client).build().discover(base, token));
      System.out.println("agent started, workflow " + workflow);
      String answer = agent.ask(workflow, "Make two notes of the groceries, one for each of us");
      for (String seen : model.toolResponsesSeen()) {
        System.out.println("tool-response " + seen);
      }
      System.out.println("answer " + answer);
      System.out.println("finished");
    }
  }
}
