package dev.toolledger.examples.springai;

import dev.toolledger.api.TenantId;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.springai.ToolLedgerTools;
import dev.toolledger.testkit.DropPolicy;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.tool.ToolCallback;

/**
 * A Spring AI agent whose write tool goes through ToolLedger, end to end on one machine:
 *
 * <ol>
 *   <li>an embedded ToolLedger node serves {@code create-note} over HTTP on a free port;
 *   <li>between agent and node, a proxy loses the first answer to a write, after the note was
 *       committed;
 *   <li>the agent ({@code ChatClient}, Spring AI's {@code ToolCallAdvisor} loop, a scripted model)
 *       is asked for a note; the model calls {@code create-note}; the call is journaled, sent, its
 *       answer lost, retried under the same key, and the model is told the recorded note;
 *   <li>the agent stops, and a new agent on the same journal runs the same turn again: the model
 *       asks again under a new tool-call id, the journal answers, nothing is sent;
 *   <li>in a second turn the user asks for two notes with the same title: the model's identical
 *       second call comes after the first was completed, so it is a new action with a new key;
 *   <li>the ledger holds three notes, each under its journal key.
 * </ol>
 *
 * <p>Argument: a directory for the files (default: a new temporary directory).
 */
public final class SpringAiAgentExample {
  static final String WORKFLOW = "chat-42/turn-1";
  static final String SECOND_WORKFLOW = "chat-42/turn-2";
  static final String NOTE = "{\"title\":\"Groceries\",\"body\":\"milk, eggs\"}";
  static final String STANDUP = "{\"title\":\"Standup\",\"body\":\"9:30\"}";

  /** What the run left behind: the ledger's notes and keys, the journal's entries per turn. */
  record Summary(
      long notes, List<String> ledgerKeys, List<JournalEntry> journal, List<JournalEntry> second) {

    /** One note for turn 1 across the lost answer and the restart, two for turn 2. */
    boolean oneNotePerStepUnderItsJournalKey() {
      List<String> journalKeys =
          java.util.stream.Stream.concat(journal.stream(), second.stream())
              .map(e -> e.key().value())
              .toList();
      return notes == 3
          && journal.size() == 1
          && second.size() == 2
          && ledgerKeys.size() == 3
          && new java.util.HashSet<>(ledgerKeys).equals(new java.util.HashSet<>(journalKeys));
    }
  }

  private SpringAiAgentExample() {}

  /**
   * Runs the story and exits: 0 when the ledger holds exactly one note per journaled step, each
   * under its step's key, 1 otherwise or on an error. It exits explicitly because the embedded node
   * leaves a non-daemon thread of the MCP SDK (its session sweeper) running after {@code close()},
   * which would keep a JVM whose {@code main} merely returned alive.
   */
  public static void main(String[] args) {
    int status;
    try {
      Path dir =
          args.length > 0
              ? Files.createDirectories(Path.of(args[0]))
              : Files.createTempDirectory("toolledger-spring-ai-");
      Summary summary = run(dir, System.out);
      status = summary.oneNotePerStepUnderItsJournalKey() ? 0 : 1;
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status);
  }

  static Summary run(Path dir, PrintStream out) throws Exception {
    Path ledgerFile = dir.resolve("ledger.db");
    Path journalFile = dir.resolve("agent-journal.db");
    out.println("ToolLedger + Spring AI: a scripted model, so no API key is needed.");
    try (ToolLedger ledger =
        ToolLedger.builder(ledgerFile.toString())
            .plugin(new NotesPlugin())
            .http("127.0.0.1", 0)
            .build()) {
      URI node = ledger.httpUri().orElseThrow();
      String token = ledger.issueToken(TenantId.of("acme"), "spring-ai-example");
      out.println("ToolLedger node: create-note on " + ledgerFile + ", HTTP at " + node);
      out.println("Agent journal:   " + journalFile);

      AtomicInteger firstPosts = new AtomicInteger();
      DropPolicy loseFirstAnswer = DropPolicy.next(1, DropPolicy.posts());
      out.println();
      out.println("Agent process 1, workflow " + WORKFLOW + "; the network loses the first answer");
      try (LossyProxy network = LossyProxy.start(node, counting(loseFirstAnswer, firstPosts));
          ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        ChatClient agent =
            agent(new ScriptedModel("call_a", NOTE, out), tools(journal, network.uri(), token));
        ask(agent, out);
        out.println(
            "  on the wire:     "
                + firstPosts.get()
                + " POSTs of create-note, "
                + network.dropped()
                + " answer lost; toolledger-client retried under the journal's key");
      }
      out.println("Agent process 1 stops.");

      AtomicInteger secondPosts = new AtomicInteger();
      List<JournalEntry> entries;
      out.println();
      out.println("Agent process 2, same journal, runs turn " + WORKFLOW + " again");
      try (LossyProxy network = LossyProxy.start(node, counting(DropPolicy.never(), secondPosts));
          ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        ChatClient agent =
            agent(new ScriptedModel("call_b", NOTE, out), tools(journal, network.uri(), token));
        ask(agent, out);
        out.println("  on the wire:     " + secondPosts.get() + " POSTs: the journal answered");
        entries = journal.entries(WORKFLOW);
      }

      AtomicInteger thirdPosts = new AtomicInteger();
      List<JournalEntry> second;
      out.println();
      out.println(
          "Agent process 2, workflow " + SECOND_WORKFLOW + "; the user wants two identical notes");
      try (LossyProxy network = LossyProxy.start(node, counting(DropPolicy.never(), thirdPosts));
          ActionJournal journal = ActionJournal.sqlite(journalFile)) {
        ChatClient agent =
            agent(
                new ScriptedModel("call_c", STANDUP, 2, out), tools(journal, network.uri(), token));
        String user = "Make two notes: standup at 9:30, one for each team";
        out.println("  user:            " + user);
        agent
            .prompt()
            .user(user)
            .toolContext(ToolLedgerTools.toolContext(SECOND_WORKFLOW))
            .call()
            .content();
        out.println(
            "  on the wire:     "
                + thirdPosts.get()
                + " POSTs: the second identical call came after the first was completed, a new"
                + " action");
        second = journal.entries(SECOND_WORKFLOW);
      }

      out.println();
      for (String workflow : List.of(WORKFLOW, SECOND_WORKFLOW)) {
        out.println("Journal of " + workflow + ":");
        for (JournalEntry e : workflow.equals(WORKFLOW) ? entries : second) {
          out.println(
              "  step "
                  + e.stepId()
                  + ": "
                  + e.action().tool()
                  + " "
                  + e.action().parameters()
                  + " -> "
                  + e.status()
                  + e.response().map(r -> " " + r.status() + " " + r.body()).orElse(""));
        }
      }
      List<String> keys = ledgerKeys(ledgerFile);
      long notes = count(ledgerFile, "SELECT COUNT(*) FROM notes");
      Summary summary = new Summary(notes, keys, entries, second);
      out.println(
          "Ledger: notes "
              + notes
              + ", operations "
              + keys.size()
              + "; one note per step, each under its journal key: "
              + (summary.oneNotePerStepUnderItsJournalKey() ? "yes" : "NO"));
      return summary;
    }
  }

  /**
   * The agent: a ChatClient whose tool-calling loop is Spring AI's {@link ToolCallAdvisor}. Any
   * ChatModel fits here, a provider's included.
   */
  static ChatClient agent(ChatModel model, List<ToolCallback> tools) {
    return ChatClient.builder(model)
        .defaultAdvisors(ToolCallAdvisor.builder().build())
        .defaultToolCallbacks(tools)
        .build();
  }

  /** ToolLedger's tools, as the server lists them, calling through one client and journal. */
  static List<ToolCallback> tools(ActionJournal journal, URI server, String token) {
    ToolLedgerClient client =
        ToolLedgerClient.builder()
            .baseUri(server)
            .token(token)
            .journal(journal)
            .retryPolicy(
                RetryPolicy.builder()
                    .maxAttempts(3)
                    .backoff(Duration.ofMillis(50), Duration.ofMillis(500))
                    .build())
            .build();
    return ToolLedgerTools.builder(client).build().discover(server, token);
  }

  private static void ask(ChatClient agent, PrintStream out) {
    String user = "Make a note: groceries (milk, eggs)";
    out.println("  user:            " + user);
    agent.prompt().user(user).toolContext(ToolLedgerTools.toolContext(WORKFLOW)).call().content();
  }

  private static DropPolicy counting(DropPolicy decide, AtomicInteger posts) {
    return exchange -> {
      if (exchange.method().equals("POST")) {
        posts.incrementAndGet();
      }
      return decide.drop(exchange);
    };
  }

  private static List<String> ledgerKeys(Path ledgerFile) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + ledgerFile);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT op_key FROM tl_operations")) {
      List<String> keys = new java.util.ArrayList<>();
      while (rs.next()) {
        keys.add(rs.getString(1));
      }
      return keys;
    }
  }

  private static long count(Path ledgerFile, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + ledgerFile);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
