package dev.toolledger.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checker on fabricated histories: one that keeps every promise, and for each rule histories
 * that break it, so that a chaos run that passes says something.
 */
class HistoryCheckerTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String NOTE_A = "{\"id\":1,\"title\":\"a\",\"body\":\"\"}";
  private static final HistoryChecker CHECKER = HistoryChecker.bound(Duration.ofSeconds(10));

  private final History history = new History();
  private final Map<String, LedgerContents.Operation> rows = new HashMap<>();
  private final Map<String, Integer> effects = new HashMap<>();
  private final List<String> stray = new ArrayList<>();
  private final Map<String, Settlement> lookups = new HashMap<>();
  private final Map<String, Answer> replays = new HashMap<>();

  private static Answer.Heard created(String body, boolean replayed) {
    return new Answer.Heard(201, body, true, replayed);
  }

  private void call(String key, long fromMillis, long toMillis, Answer answer) {
    history.add(
        Call.tool(
            key,
            "create-note",
            "{\"title\":\"" + key + "\"}",
            T0.plusMillis(fromMillis),
            T0.plusMillis(toMillis),
            answer));
  }

  private void completed(String key, String body) {
    rows.put(key, new LedgerContents.Operation(key, "COMPLETED", 201, body));
    effects.put(key, 1);
  }

  /** Key a acknowledged and replayed; key b's answer lost, executed; key c lost before the node. */
  private void keptPromises() {
    call("a", 0, 40, created(NOTE_A, false));
    completed("a", NOTE_A);
    replays.put("a", created(NOTE_A, true));

    call("b", 10, 60, new Answer.None("connection closed"));
    completed("b", "{\"id\":2,\"title\":\"b\",\"body\":\"\"}");
    lookups.put("b", Settlement.COMPLETED);

    call("c", 20, 30, new Answer.None("connection refused"));
    lookups.put("c", Settlement.NOT_FOUND);
  }

  private Verdict check() {
    return CHECKER.check(history, new LedgerContents(rows, effects, stray), lookups, replays);
  }

  @Test
  void aHistoryThatKeepsEveryPromiseHolds() {
    keptPromises();

    Verdict verdict = check().assertHolds();

    assertThat(verdict.keys()).isEqualTo(3);
    assertThat(verdict.acknowledged()).isEqualTo(1);
    assertThat(verdict.openAnswers()).isEqualTo(2);
    assertThat(verdict.lost()).isZero();
    assertThat(verdict.duplicated()).isZero();
    assertThat(verdict.longestWait()).isEqualTo(Duration.ofMillis(50));
  }

  @Test
  void aKeyWithTwoEffectsBreaksOneEffectPerKey() {
    keptPromises();
    effects.put("b", 2);

    Verdict verdict = check();

    assertThat(verdict.of(Rule.ONE_EFFECT_PER_KEY)).extracting(Violation::key).contains("b");
    assertThat(verdict.duplicated()).isEqualTo(1);
    assertThatThrownBy(verdict::assertHolds).hasMessageContaining("2 effects in the database");
  }

  @Test
  void anEffectNoRequestAskedForBreaksOneEffectPerKey() {
    keptPromises();
    stray.add("note 9 titled z");

    assertThat(check().of(Rule.ONE_EFFECT_PER_KEY))
        .singleElement()
        .extracting(Violation::detail)
        .asString()
        .contains("note 9");
  }

  @Test
  void twoAnswersThatBothExecutedAKeyBreakOneEffectPerKey() {
    keptPromises();
    call("a", 50, 70, created(NOTE_A, false));

    assertThat(check().of(Rule.ONE_EFFECT_PER_KEY)).extracting(Violation::key).containsExactly("a");
  }

  @Test
  void anAcknowledgedKeyMissingFromTheLedgerIsLost() {
    keptPromises();
    rows.remove("a");

    Verdict verdict = check();

    assertThat(verdict.of(Rule.ACKNOWLEDGED_DURABLE))
        .extracting(Violation::detail)
        .contains("acknowledged but not in the ledger");
    assertThat(verdict.lost()).isEqualTo(1);
  }

  @Test
  void anAcknowledgedKeyWithoutItsEffectIsLost() {
    keptPromises();
    effects.remove("a");

    assertThat(check().of(Rule.ACKNOWLEDGED_DURABLE))
        .extracting(Violation::detail)
        .contains("acknowledged but its effect is missing");
  }

  @Test
  void aReplayThatDiffersByOneByteBreaksAcknowledgedDurable() {
    keptPromises();
    replays.put("a", created(NOTE_A.replace(":1,", ": 1,"), true));

    assertThat(check().of(Rule.ACKNOWLEDGED_DURABLE))
        .singleElement()
        .extracting(Violation::detail)
        .asString()
        .contains("but replayed");
  }

  @Test
  void aMissingReplayBreaksAcknowledgedDurable() {
    keptPromises();
    replays.put("a", new Answer.None("connection refused"));

    assertThat(check().of(Rule.ACKNOWLEDGED_DURABLE))
        .singleElement()
        .extracting(Violation::detail)
        .asString()
        .contains("no replay after the run");
  }

  @Test
  void twoDifferentAcknowledgementsOfOneKeyBreakAcknowledgedDurable() {
    keptPromises();
    call("a", 50, 60, created("{\"id\":7,\"title\":\"a\",\"body\":\"\"}", true));

    assertThat(check().of(Rule.ACKNOWLEDGED_DURABLE))
        .extracting(Violation::detail)
        .anyMatch(d -> d.startsWith("acknowledged twice with different answers"));
  }

  @Test
  void aKeyLeftInProgressAfterTheRunIsUnsettled() {
    keptPromises();
    call("d", 0, 5_000, new Answer.Heard(409, "{\"type\":\"in-progress\"}", false, false));
    rows.put("d", new LedgerContents.Operation("d", "IN_PROGRESS", 0, ""));
    lookups.put("d", Settlement.IN_PROGRESS);

    assertThat(check().of(Rule.UNKNOWN_SETTLED)).extracting(Violation::key).containsExactly("d");
  }

  @Test
  void aKeyLeftOpenWithoutALookupIsUnsettled() {
    keptPromises();
    lookups.remove("b");

    assertThat(check().of(Rule.UNKNOWN_SETTLED)).extracting(Violation::key).containsExactly("b");
  }

  @Test
  void aLookupThatFindsNothingWhileTheEffectExistsIsUnsettled() {
    keptPromises();
    effects.put("c", 1);

    assertThat(check().of(Rule.UNKNOWN_SETTLED))
        .singleElement()
        .extracting(Violation::detail)
        .asString()
        .contains("found no record");
  }

  @Test
  void aKeyStillReportedUnknownIsSettled() {
    keptPromises();
    call("e", 0, 100, new Answer.Heard(500, "{}", false, false));
    rows.put("e", new LedgerContents.Operation("e", "UNKNOWN", 0, ""));
    lookups.put("e", Settlement.UNKNOWN);

    Verdict verdict = check().assertHolds();

    assertThat(verdict.stillUnknown()).isEqualTo(1);
  }

  @Test
  void aRequestThatWaitedPastTheBoundBreaksWaitBounded() {
    keptPromises();
    history.add(
        Call.lookup("b", T0, T0.plusSeconds(11), new Answer.Heard(200, "{}", false, false)));

    Verdict verdict = check();

    assertThat(verdict.of(Rule.WAIT_BOUNDED))
        .singleElement()
        .extracting(Violation::detail)
        .asString()
        .contains("waited 11000 ms");
    assertThat(verdict.longestWait()).isEqualTo(Duration.ofSeconds(11));
  }

  @Test
  void aBoundMustBePositive() {
    assertThatThrownBy(() -> HistoryChecker.bound(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bound");
  }
}
