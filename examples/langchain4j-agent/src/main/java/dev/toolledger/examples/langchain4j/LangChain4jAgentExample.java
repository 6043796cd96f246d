package dev.toolledger.examples.langchain4j;

import dev.langchain4j.service.Result;
import dev.langchain4j.service.tool.ToolExecution;
import dev.toolledger.api.TenantId;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.langchain4j.LedgerToolCall;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.testkit.LossyProxy;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * A LangChain4j agent whose write tool goes through ToolLedger, told step by step: a lost answer
 * retried and replayed, an outcome that stays unknown when every answer is lost, the agent started
 * again on the same journal, replaying its run and getting the recorded outcome, and two notes with
 * the same title asked for in one request, which are two actions. Ends with {@code All checks
 * passed.} and exits non-zero if any check fails.
 *
 * <pre>
 * mvn -B -q -pl examples/langchain4j-agent -am package -DskipTests -Drun
 * </pre>
 *
 * <p>Argument (optional): a directory for the ledger and the journal; default a new temporary one.
 */
public final class LangChain4jAgentExample {
  private static final RetryPolicy PATIENT =
      RetryPolicy.builder()
          .maxAttempts(5)
          .backoff(Duration.ofMillis(50), Duration.ofMillis(200))
          .build();
  private static final RetryPolicy THREE_ATTEMPTS =
      RetryPolicy.builder()
          .maxAttempts(3)
          .backoff(Duration.ofMillis(50), Duration.ofMillis(200))
          .build();

  private LangChain4jAgentExample() {}

  public static void main(String[] args) throws Exception {
    Path dir =
        args.length > 0
            ? Files.createDirectories(Path.of(args[0]))
            : Files.createTempDirectory("toolledger-langchain4j-");
    // Exit explicitly: the embedded node's MCP transport (SDK 2.2.0) leaves a non-daemon
    // session-sweeper thread behind after close, which would keep the JVM (and exec:java) waiting.
    System.exit(run(dir, System.out) ? 0 : 1);
  }

  /** Plays the story in {@code dir}; returns whether every check passed. */
  static boolean run(Path dir, PrintStream out) throws Exception {
    Checks checks = new Checks(out);
    Path ledgerFile = dir.resolve("ledger.db");
    Path journalFile = dir.resolve("agent-journal.db");
    NoteTakingModel model = new NoteTakingModel(out);
    out.println(
        "ToolLedger + LangChain4j: an agent's write tool across a lost answer and a restart");
    out.println(
        "(a scripted model stands in for a real one: no API key, the same story every time)");

    try (ToolLedger ledger =
        ToolLedger.builder(ledgerFile.toString())
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .http("127.0.0.1", 0)
            .build()) {
      URI server = ledger.httpUri().orElseThrow();
      String token = ledger.issueToken(TenantId.of("acme"), "langchain4j-example");
      Network network = new Network(out);
      try (LossyProxy proxy = LossyProxy.start(server, network)) {
        out.println();
        out.println("ToolLedger node: " + server + " (ledger " + ledgerFile + ")");
        out.println("Agent journal:   " + journalFile);

        out.println();
        out.println("1. Request 'request-1'. The server's first answer is lost on the way back.");
        network.loseNextAnswers(1);
        OperationKey firstKey;
        try (AgentHost agent = AgentHost.start(journalFile, proxy.uri(), token, PATIENT, model)) {
          Result<String> result =
              agent.handle("request-1", "Create a note titled 'Quarterly report'");
          LedgerToolCall call = only(result);
          print(out, call);
          out.println("   agent answers: " + result.content());
          firstKey = call.outcome().key();
          checks.that("the retry got the recorded note (replayed)", replayed(call.outcome()));
          checks.that(
              "one note in the ledger after a lost answer", count(ledgerFile, "notes") == 1);
        }

        out.println();
        out.println(
            "2. Request 'request-2'. Every answer is lost; the client gives up after 3 attempts,");
        out.println("   and the agent process stops without knowing whether the note exists.");
        network.loseEveryAnswer();
        OperationKey unknownKey;
        try (AgentHost agent =
            AgentHost.start(journalFile, proxy.uri(), token, THREE_ATTEMPTS, model)) {
          Result<String> result = agent.handle("request-2", "Create a note titled 'Board minutes'");
          LedgerToolCall call = only(result);
          print(out, call);
          out.println("   agent answers: " + result.content());
          unknownKey = call.outcome().key();
          checks.that("the model was told 'unknown', not success", call.unknown());
          checks.that(
              "the journal keeps the step as UNKNOWN",
              agent
                  .journal()
                  .find("request-2", "call-1")
                  .orElseThrow()
                  .status()
                  .name()
                  .equals("UNKNOWN"));
        }
        out.println(
            "   (agent stopped; the server did commit the note: "
                + count(ledgerFile, "notes")
                + " notes in the ledger)");

        out.println();
        out.println(
            "3. The agent starts again on the same journal and replays request-2 from the user's");
        out.println("   message. The model is asked again and mints a new tool-call id.");
        network.deliverEverything();
        int postsBefore = network.posts();
        try (AgentHost agent = AgentHost.start(journalFile, proxy.uri(), token, PATIENT, model)) {
          Result<String> result = agent.handle("request-2", "Create a note titled 'Board minutes'");
          LedgerToolCall call = only(result);
          print(out, call);
          out.println("   agent answers: " + result.content());
          checks.that(
              "the restarted agent used the same key", call.outcome().key().equals(unknownKey));
          checks.that("and got the recorded note (replayed)", replayed(call.outcome()));
          checks.that("without sending the note again", network.posts() == postsBefore);
        }

        out.println();
        out.println(
            "4. Request 'request-3' asks for two notes with the same title. The first is completed,");
        out.println("   so the model's identical second call is a new action with a new key.");
        try (AgentHost agent = AgentHost.start(journalFile, proxy.uri(), token, PATIENT, model)) {
          Result<String> result =
              agent.handle("request-3", "Create two notes titled 'Standup', one for each team");
          List<ToolExecution> executions = result.toolExecutions();
          for (ToolExecution execution : executions) {
            print(out, (LedgerToolCall) execution.resultObject());
          }
          out.println("   agent answers: " + result.content());
          checks.that("two calls, steps call-1 and call-2", executions.size() == 2);
          checks.that(
              "under two keys, both carried out",
              executions.size() == 2
                  && executions.stream()
                      .map(e -> ((LedgerToolCall) e.resultObject()).outcome())
                      .allMatch(o -> o instanceof Outcome.Completed c && !c.replayed())
                  && !key(executions.get(0)).equals(key(executions.get(1))));
        }

        out.println();
        out.println("5. The journal explains every step:");
        try (ActionJournal journal = ActionJournal.sqlite(journalFile)) {
          for (String run : List.of("request-1", "request-2", "request-3")) {
            for (JournalEntry entry : journal.entries(run)) {
              out.println(
                  "   "
                      + entry.workflowId()
                      + " "
                      + entry.stepId()
                      + " "
                      + entry.action().tool()
                      + " "
                      + Json.write(entry.action().parameters())
                      + " key "
                      + Keys.shorten(entry.key().value())
                      + " "
                      + entry.status()
                      + entry.response().map(r -> " " + r.status() + " " + r.body()).orElse(""));
            }
          }
          checks.that(
              "request-1 kept its key",
              journal.find("request-1", "call-1").orElseThrow().key().equals(firstKey));
          checks.that(
              "nothing left unfinished", journal.workflowsWithUnfinishedActions().isEmpty());
        }
        long notes = count(ledgerFile, "notes");
        long operations = count(ledgerFile, "tl_operations");
        out.println();
        out.println("Result: " + notes + " notes, " + operations + " operations.");
        checks.that("exactly one note per step: 1 + 1 + 2", notes == 4 && operations == 4);
      }
    }
    out.println(checks.passed() ? "All checks passed." : "Some checks FAILED.");
    return checks.passed();
  }

  private static LedgerToolCall only(Result<String> result) {
    List<ToolExecution> executions = result.toolExecutions();
    if (executions.size() != 1) {
      throw new IllegalStateException("expected one tool call, got " + executions.size());
    }
    return (LedgerToolCall) executions.get(0).resultObject();
  }

  private static OperationKey key(ToolExecution execution) {
    return ((LedgerToolCall) execution.resultObject()).outcome().key();
  }

  private static void print(PrintStream out, LedgerToolCall call) {
    out.println(
        "   ToolLedger: "
            + call.runId()
            + " step "
            + call.stepId()
            + ", key "
            + Keys.shorten(call.outcome().key().value())
            + ", outcome "
            + call.outcome().getClass().getSimpleName()
            + (call.outcome() instanceof Outcome.Completed c ? ", replayed=" + c.replayed() : ""));
  }

  private static boolean replayed(Outcome outcome) {
    return outcome instanceof Outcome.Completed c && c.isSuccess() && c.replayed();
  }

  private static long count(Path ledger, String table) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + ledger);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Prints each check and remembers whether all passed. */
  private static final class Checks {
    private final PrintStream out;
    private boolean passed = true;

    Checks(PrintStream out) {
      this.out = out;
    }

    void that(String what, boolean ok) {
      out.println("   check: " + what + (ok ? ": ok" : ": FAILED"));
      passed &= ok;
    }

    boolean passed() {
      return passed;
    }
  }
}
