package dev.toolledger.examples.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the example's story as {@code mvn ... -Drun} does, and reads what it printed. */
class LangChain4jAgentExampleTest {
  @TempDir Path dir;

  @Test
  void exampleTellsTheLostAnswerTheUnknownOutcomeAndTheRestartAndPassesItsChecks()
      throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    boolean passed;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      passed = LangChain4jAgentExample.run(dir, out);
    }
    String story = printed.toString(StandardCharsets.UTF_8);

    assertThat(passed).as(story).isTrue();
    assertThat(story)
        .contains("-> 201, the answer is LOST on the way back")
        .contains("\"outcome\":\"unknown\"")
        .contains("(a lookup of the journaled key) -> 200, delivered")
        .contains("Result: 4 notes, 4 operations.")
        .endsWith("All checks passed." + System.lineSeparator())
        .doesNotContain("FAILED");
    // The replayed run after the restart: the model got the recorded note, under the same key.
    String restart =
        story.substring(story.indexOf("3. The agent starts again"), story.indexOf("4. Request"));
    assertThat(restart).contains("\"replayed\":true").contains("Note #2 'Board minutes' is saved.");
    // Two notes with one title in one request: two steps, two keys, both carried out.
    String twice = story.substring(story.indexOf("4. Request"), story.indexOf("5. The journal"));
    assertThat(twice)
        .contains("request-3 step call-1")
        .contains("request-3 step call-2")
        .contains("Note #4 'Standup' is saved.")
        .doesNotContain("replayed=true");
  }
}
