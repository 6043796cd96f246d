package dev.toolledger.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.SqlDialect;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SweepPacingTest {
  private static final long MS = 1_000_000;

  @Test
  void sqliteSweepsWithATenthOfTheWriteTimeAndPostgresqlWithAFifth() {
    assertThat(SweepPacing.forDialect(SqlDialect.SQLITE).writeShare()).isEqualTo(0.1);
    assertThat(SweepPacing.forDialect(SqlDialect.POSTGRESQL).writeShare()).isEqualTo(0.2);
    assertThat(SweepPacing.forDialect(SqlDialect.SQLITE).maxPause())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void withNoCreationThePauseHoldsTheSweepToItsWriteShare() {
    SweepPacing tenth = new SweepPacing(0.1, Duration.ofSeconds(1));
    // A 10 ms batch, then 90 ms of pause: 10 ms of every 100.
    assertThat(tenth.pauseNanos(10 * MS, 500, 0, 10 * MS)).isEqualTo(90 * MS);
    SweepPacing fifth = new SweepPacing(0.2, Duration.ofSeconds(1));
    assertThat(fifth.pauseNanos(10 * MS, 500, 0, 10 * MS)).isEqualTo(40 * MS);
  }

  @Test
  void whenTheNodeCreatesFasterThanTheShareDeletesThePauseShortensToKeepUp() {
    SweepPacing tenth = new SweepPacing(0.1, Duration.ofSeconds(1));
    // 10 ms batches of 500 at a tenth delete 5,000 records/s. The node created 1,000 records in
    // the 100 ms since the pass began: 10,000/s. To delete 500 per 50 ms the pause is 40 ms.
    long pause = tenth.pauseNanos(10 * MS, 500, 1_000, 100 * MS);
    assertThat(pause).isEqualTo(40 * MS);
    assertThat(500.0 / ((10 * MS + pause) / 1e9)).isGreaterThanOrEqualTo(10_000.0);
  }

  @Test
  void whenTheShareAloneKeepsUpCreationDoesNotLengthenThePause() {
    SweepPacing tenth = new SweepPacing(0.1, Duration.ofSeconds(1));
    // 1,000 records/s created; the share's 5,000/s is more than enough.
    assertThat(tenth.pauseNanos(10 * MS, 500, 100, 100 * MS)).isEqualTo(90 * MS);
  }

  @Test
  void thePauseIsAtLeastAMillisecondAndAtMostTheMaximum() {
    SweepPacing tenth = new SweepPacing(0.1, Duration.ofMillis(500));
    // Creation far ahead of anything the sweep can do: writers still get their turn.
    assertThat(tenth.pauseNanos(10 * MS, 500, 1_000_000, 100 * MS)).isEqualTo(MS);
    // A 200 ms batch would ask for 1.8 s; the pass still deletes a batch every 700 ms.
    assertThat(tenth.pauseNanos(200 * MS, 500, 0, 200 * MS)).isEqualTo(500 * MS);
    // A share of 1 sweeps flat out.
    assertThat(new SweepPacing(1, Duration.ofSeconds(1)).pauseNanos(10 * MS, 500, 0, 10 * MS))
        .isEqualTo(MS);
  }

  @Test
  void aShareOutsideZeroToOneOrAPauseBelowAMillisecondIsRejectedByName() {
    assertThatThrownBy(() -> new SweepPacing(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeShare");
    assertThatThrownBy(() -> new SweepPacing(1.5, Duration.ofSeconds(1)))
        .hasMessageContaining("writeShare");
    assertThatThrownBy(() -> new SweepPacing(Double.NaN, Duration.ofSeconds(1)))
        .hasMessageContaining("writeShare");
    assertThatThrownBy(() -> new SweepPacing(0.1, Duration.ZERO)).hasMessageContaining("maxPause");
    assertThatThrownBy(() -> new SweepPacing(0.1, null)).hasMessageContaining("maxPause");
  }
}
