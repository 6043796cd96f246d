package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.cli.demo.DemoScript;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DemoTest {

  @Test
  void demoPlaysEveryStepAndEndsWithThreeNotesAndThreeOperations() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    boolean passed =
        new DemoScript(new PrintStream(buffer, true, StandardCharsets.UTF_8), false).run();
    String output = buffer.toString(StandardCharsets.UTF_8);

    assertThat(output).doesNotContain("[FAIL]");
    assertThat(output).contains("Result: 3 notes, 3 operations, 3 attachments processed.");
    assertThat(output).contains("Idempotent-Replayed: true");
    assertThat(output).contains("idempotency-key-reused");
    assertThat(passed).isTrue();
  }
}
