package dev.toolledger.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.SqliteActionJournal;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.StoredResponse;
import dev.toolledger.testkit.MovableClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same-action rule on a real journal file, with a clock the test moves. */
class ActionClaimsTest {
  private static final Duration WINDOW = Duration.ofHours(1);

  @TempDir Path dir;
  private final MovableClock clock = MovableClock.at("2026-01-05T10:00:00Z");
  private ActionJournal journal;
  private ActionClaims claims;

  @BeforeEach
  void open() {
    journal = SqliteActionJournal.builder(dir.resolve("guard.db")).clock(clock).open();
    claims = new ActionClaims(journal, "host-a", WINDOW, clock);
  }

  @AfterEach
  void close() {
    journal.close();
  }

  @Test
  void identicalCallsWhileTheFirstIsRunningAreOneAction() {
    ActionClaims.Claim first = claims.claim("create-note", Json.parse("{\"title\":\"a\",\"n\":1}"));
    ActionClaims.Claim second =
        claims.claim("create-note", Json.parse("{\"n\":1.0,\"title\":\"a\"}"));

    assertThat(first.earlier()).isFalse();
    assertThat(second.earlier()).isTrue();
    assertThat(second.id()).isEqualTo(first.id()).startsWith("act-").hasSize(16);
  }

  @Test
  void otherArgumentsOrAnotherToolAreAnotherAction() {
    ActionClaims.Claim first = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));

    assertThat(claims.claim("create-note", Json.parse("{\"title\":\"b\"}")).id())
        .isNotEqualTo(first.id());
    assertThat(claims.claim("create-task", Json.parse("{\"title\":\"a\"}")).id())
        .isNotEqualTo(first.id());
  }

  @Test
  void anUnansweredJournaledActionIsClaimedByAnIdenticalCallAfterARestart() {
    ActionClaims.Claim sent = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));
    journal.record(sent.action()); // journaled, then the guard died without releasing
    ActionClaims afterRestart = new ActionClaims(journal, "host-a", WINDOW, clock);
    clock.advance(Duration.ofMinutes(59));

    ActionClaims.Claim again = afterRestart.claim("create-note", Json.parse("{\"title\":\"a\"}"));

    assertThat(again.earlier()).isTrue();
    assertThat(again.id()).isEqualTo(sent.id());
  }

  @Test
  void anAnsweredActionIsNotClaimedSoAnIdenticalCallIsANewAction() {
    ActionClaims.Claim sent = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));
    journal.markCompleted(
        journal.record(sent.action()).entry().key(), new StoredResponse(201, "{\"id\":1}"));
    claims.release(sent);

    ActionClaims.Claim second = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));

    assertThat(second.earlier()).isFalse();
    assertThat(second.id()).isNotEqualTo(sent.id());
  }

  @Test
  void anUnansweredActionOlderThanTheWindowIsNotClaimed() {
    ActionClaims.Claim sent = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));
    journal.markUnknown(journal.record(sent.action()).entry().key());
    claims.release(sent);
    clock.advance(WINDOW.plusSeconds(1));

    ActionClaims.Claim later = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));

    assertThat(later.earlier()).isFalse();
    assertThat(later.id()).isNotEqualTo(sent.id());
    assertThat(claims.claimable(journal.find("host-a", sent.id()).orElseThrow())).isFalse();
  }

  @Test
  void sessionsNeverClaimEachOthersActions() {
    ActionClaims.Claim a = claims.claim("create-note", Json.parse("{\"title\":\"a\"}"));
    journal.record(a.action());
    claims.release(a);
    ActionClaims other = new ActionClaims(journal, "host-b", WINDOW, clock);

    assertThat(other.claim("create-note", Json.parse("{\"title\":\"a\"}")).earlier()).isFalse();
  }
}
