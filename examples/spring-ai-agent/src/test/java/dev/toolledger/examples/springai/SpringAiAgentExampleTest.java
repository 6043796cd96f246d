package dev.toolledger.examples.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the example's {@code main} as the one command does, in a JVM of its own, and checks its
 * story against the ledger and journal files it leaves behind.
 */
class SpringAiAgentExampleTest {
  @TempDir Path dir;

  @Test
  void mainMakesOneNotePerStepThroughALostAnswerARestartAndTwoIdenticalNotesAndExitsZero()
      throws Exception {
    Path run = dir.resolve("run");
    Path output = dir.resolve("main.log");
    Process main =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // A short-lived JVM: the C1 compiler alone starts it faster on a busy machine.
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                SpringAiAgentExample.class.getName(),
                run.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      assertThat(main.waitFor(90, TimeUnit.SECONDS)).as("main ends by itself").isTrue();
    } finally {
      main.destroyForcibly();
    }
    String story = Files.readString(output);
    assertThat(main.exitValue()).as(story).isZero();

    List<JournalEntry> journal;
    List<JournalEntry> second;
    try (ActionJournal opened = ActionJournal.sqlite(run.resolve("agent-journal.db"))) {
      journal = opened.entries(SpringAiAgentExample.WORKFLOW);
      second = opened.entries(SpringAiAgentExample.SECOND_WORKFLOW);
    }
    assertThat(journal).hasSize(1);
    assertThat(journal.get(0).status()).isEqualTo(ActionStatus.COMPLETED);
    assertThat(second).extracting(JournalEntry::stepId).containsExactly("call-1", "call-2");
    assertThat(second).extracting(JournalEntry::status).containsOnly(ActionStatus.COMPLETED);
    assertThat(second).extracting(JournalEntry::key).doesNotHaveDuplicates();
    assertThat(ledger(run, "SELECT COUNT(*) FROM notes")).containsExactly("3");
    assertThat(ledger(run, "SELECT op_key FROM tl_operations"))
        .containsExactlyInAnyOrder(
            journal.get(0).key().value(), second.get(0).key().value(), second.get(1).key().value());

    assertThat(story)
        .contains("(tool call call_a1)")
        .contains("2 POSTs of create-note, 1 answer lost")
        .contains("(tool call call_b1)")
        .contains("0 POSTs: the journal answered")
        .contains("Note #1 \"Groceries\" is saved (the recorded result: it was not saved twice).")
        .contains("(tool call call_c2)")
        .contains("2 POSTs: the second identical call came after the first was completed")
        .contains("Note #3 \"Standup\" is saved.")
        .contains(
            "Ledger: notes 3, operations 3; one note per step, each under its journal key: yes")
        .doesNotContain(journal.get(0).key().value());
  }

  private static List<String> ledger(Path run, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + run.resolve("ledger.db"));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      List<String> rows = new java.util.ArrayList<>();
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
      return rows;
    }
  }
}
