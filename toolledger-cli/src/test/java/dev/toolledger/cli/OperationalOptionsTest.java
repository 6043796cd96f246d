package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the log format and the operator token come from, and what is refused. */
class OperationalOptionsTest {
  @TempDir Path dir;

  @Test
  void logFormatComesFromTheOptionThenTheEnvironmentThenDefaultsToPlain() {
    Map<String, String> json = Map.of("TOOLLEDGER_LOG_FORMAT", "json");

    assertThat(LogFormat.choose(new String[] {"serve"}, Map.of())).isEqualTo(LogFormat.PLAIN);
    assertThat(LogFormat.choose(new String[] {"serve"}, json)).isEqualTo(LogFormat.JSON);
    assertThat(LogFormat.choose(new String[] {"serve", "--log-format", "plain"}, json))
        .isEqualTo(LogFormat.PLAIN);
    assertThat(LogFormat.choose(new String[] {"serve", "--log-format=JSON"}, Map.of()))
        .isEqualTo(LogFormat.JSON);
  }

  @Test
  void anUnknownLogFormatIsRefusedAndNamesItsSource() {
    assertThatThrownBy(
            () -> LogFormat.choose(new String[] {"serve"}, Map.of("TOOLLEDGER_LOG_FORMAT", "xml")))
        .hasMessage("TOOLLEDGER_LOG_FORMAT must be plain or json");
    assertThatThrownBy(
            () -> LogFormat.choose(new String[] {"serve", "--log-format", "x"}, Map.of()))
        .hasMessage("--log-format must be plain or json");
  }

  @Test
  void theOperatorTokenComesFromOnePlaceAndMustBeLongEnough() throws Exception {
    OperatorOptions options = new OperatorOptions();
    Path file = dir.resolve("operator-token");
    Files.writeString(file, "a-long-enough-operator-token\n");

    assertThat(options.operators(Map.of()).configured()).isFalse();
    assertThat(
            options
                .operators(Map.of("TOOLLEDGER_OPERATOR_TOKEN", "a-long-enough-operator-token"))
                .authenticate("Bearer a-long-enough-operator-token"))
        .isPresent();
    assertThatThrownBy(() -> options.operators(Map.of("TOOLLEDGER_OPERATOR_TOKEN", "short")))
        .hasMessageContaining("at least 16");
    options.file = file;
    assertThat(options.operators(Map.of()).authenticate("Bearer a-long-enough-operator-token"))
        .isPresent();
    assertThatThrownBy(
            () -> options.operators(Map.of("TOOLLEDGER_OPERATOR_TOKEN", "another-long-token-x")))
        .hasMessageContaining("give it in one place");
  }
}
