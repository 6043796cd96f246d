package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {
  private final DurationConverter converter = new DurationConverter();

  @Test
  void readsShortAndIsoForms() {
    assertThat(converter.convert("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(converter.convert("5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(converter.convert("7d")).isEqualTo(Duration.ofDays(7));
    assertThat(converter.convert("PT1M")).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void refusesNonsenseWithAnExample() {
    assertThatThrownBy(() -> converter.convert("soon"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("250ms");
  }
}
