package dev.toolledger.client;

import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent host as a separate process, for {@link KilledClientResumeTest}: it journals a workflow's
 * plan, then executes the steps in order with a patient retry policy, until the test kills it with
 * SIGKILL.
 *
 * <p>Arguments: journal file, server base URI, workflow id, number of steps. The bearer token comes
 * from the environment ({@code TOOLLEDGER_TOKEN}), never from the command line.
 */
public final class JournalingAgentMain {
  private JournalingAgentMain() {}

  public static void main(String[] args) {
    Path journalFile = Path.of(args[0]);
    URI base = URI.create(args[1]);
    String workflow = args[2];
    int steps = Integer.parseInt(args[3]);
    try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
      List<Action> plan = new ArrayList<>();
      for (int i = 0; i < steps; i++) {
        Action action =
            Action.of(
                workflow,
                "step-" + i,
                "create-note",
                Json.parse("{\"title\":\"" + workflow + " note " + i + "\"}"));
        journal.record(action);
        plan.add(action);
      }
      System.out.println("planned " + steps + " steps");
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(base)
              .token(System.getenv("TOOLLEDGER_TOKEN"))
              .journal(journal)
              .retryPolicy(
                  RetryPolicy.builder()
                      .maxAttempts(100_000)
                      .deadline(Duration.ofMinutes(10))
                      .backoff(Duration.ofMillis(5), Duration.ofMillis(50))
                      .budget(1_000_000, 0, 1)
                      .build())
              .build();
      for (Action action : plan) {
        Outcome outcome = client.call(action);
        System.out.println(action.stepId() + " " + outcome.getClass().getSimpleName());
      }
      System.out.println("workflow finished");
    }
  }
}
