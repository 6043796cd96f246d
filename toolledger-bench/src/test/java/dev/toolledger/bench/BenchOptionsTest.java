package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@code toolledger bench} accepts before it measures anything. */
class BenchOptionsTest {
  private static final Path DIR = Path.of("bench-dir");

  private static BenchOptions options(
      Duration slice, int rounds, List<Integer> threads, List<String> scenarios) {
    return new BenchOptions(
        DIR,
        Optional.empty(),
        slice,
        rounds,
        threads,
        Optional.empty(),
        Optional.empty(),
        false,
        scenarios);
  }

  private static BenchOptions scenarios(String... names) {
    return options(Duration.ofMillis(300), 2, List.of(1), List.of(names));
  }

  private static BenchOptions threads(Integer... counts) {
    return options(Duration.ofMillis(300), 2, List.of(counts), List.of());
  }

  @Test
  void unknownScenarioIsRejectedWithTheListOfScenarios() {
    assertThatThrownBy(() -> scenarios("keyed-create", "keyed-creat"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("no scenario named 'keyed-creat'; the scenarios are ")
        .hasMessageContainingAll(Scenarios.NAMES.toArray(String[]::new));
  }

  @Test
  void everyScenarioCanBeChosenByName() {
    for (String name : Scenarios.NAMES) {
      assertThat(scenarios(name).scenarios()).containsExactly(name);
    }
    assertThat(scenarios().scenarios()).isEmpty();
  }

  @Test
  void sliceShorterThan100MillisecondsIsRejected() {
    assertThatThrownBy(() -> options(Duration.ofMillis(99), 2, List.of(1), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a slice must be at least 100 ms");
    assertThat(options(Duration.ofMillis(100), 2, List.of(1), List.of()).slice())
        .isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void fewerThanOneRoundIsRejected() {
    assertThatThrownBy(() -> options(Duration.ofMillis(300), 0, List.of(1), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rounds must be at least 1");
    assertThat(options(Duration.ofMillis(300), 1, List.of(1), List.of()).rounds()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 513})
  void threadCountOutsideOneTo512IsRejected(int count) {
    assertThatThrownBy(() -> threads(1, count))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threads must be 1 to 512 each");
  }

  @Test
  void noThreadCountIsRejected() {
    assertThatThrownBy(() -> threads())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threads must be 1 to 512 each");
  }

  @Test
  void threadCountsFromOneTo512AreAccepted() {
    assertThat(threads(1, 16, 512).threads()).containsExactly(1, 16, 512);
  }

  @Test
  void listsAreCopiedSoTheCallerCannotChangeThemAfterValidation() {
    List<Integer> threads = new ArrayList<>(List.of(1));
    List<String> scenarios = new ArrayList<>(List.of("replay"));
    BenchOptions options = options(Duration.ofMillis(300), 2, threads, scenarios);

    threads.add(0);
    scenarios.add("no-such-scenario");

    assertThat(options.threads()).containsExactly(1);
    assertThat(options.scenarios()).containsExactly("replay");
  }
}
