package dev.toolledger.examples.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.journal.ActionStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the example as {@code main} does and checks its story against the files it left. */
class SpringAiAgentExampleTest {
  @TempDir Path dir;

  @Test
  void exampleMakesOneNoteUnderTheJournalsKeyThroughALostAnswerAndARestart() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    SpringAiAgentExample.Summary summary;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      summary = SpringAiAgentExample.run(dir, out);
    }
    String story = printed.toString(StandardCharsets.UTF_8);

    assertThat(summary.notes()).isEqualTo(1);
    assertThat(summary.answersLost()).isEqualTo(1);
    assertThat(summary.postsFirstRun()).isEqualTo(2);
    assertThat(summary.postsSecondRun()).isZero();
    assertThat(summary.journal()).hasSize(1);
    assertThat(summary.journal().get(0).status()).isEqualTo(ActionStatus.COMPLETED);
    assertThat(summary.ledgerKeys()).containsExactly(summary.journal().get(0).key().value());

    assertThat(story)
        .contains("(tool call call_a1)")
        .contains("(tool call call_b1)")
        .contains("Note #1 \"Groceries\" is saved (the recorded result: it was not saved twice).")
        .contains("Ledger: notes 1, operations 1; one note, recorded under the journal's key: yes")
        .doesNotContain(summary.journal().get(0).key().value());
  }

  @Test
  void mainRunsAsItsOwnProcessTellsTheStoryAndExitsZero() throws Exception {
    Path output = dir.resolve("main.log");
    Process main =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SpringAiAgentExample.class.getName(),
                dir.resolve("run").toString())
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
    assertThat(story)
        .contains("Agent process 1")
        .contains("Agent process 2")
        .contains("Ledger: notes 1, operations 1; one note, recorded under the journal's key: yes");
    assertThat(dir.resolve("run").resolve("agent-journal.db")).exists();
  }
}
