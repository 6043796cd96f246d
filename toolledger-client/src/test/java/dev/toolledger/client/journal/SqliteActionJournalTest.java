package dev.toolledger.client.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.StoredResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal on real SQLite files. */
class SqliteActionJournalTest {
  private static final Pattern BASE64URL_192_BITS = Pattern.compile("[A-Za-z0-9_-]{32}");

  @TempDir Path dir;

  private static JsonNode note(String title) {
    return Json.parse("{\"title\":\"" + title + "\"}");
  }

  private Path file() {
    return dir.resolve("journal.db");
  }

  @Test
  void recordingAStepMintsAPendingEntryWithANewKey() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      Recorded recorded = journal.record(Action.of("wf", "s1", "create-note", note("a")));

      assertThat(recorded.isNew()).isTrue();
      assertThat(recorded.entry().status()).isEqualTo(ActionStatus.PENDING);
      assertThat(recorded.entry().key().value()).matches(BASE64URL_192_BITS);
      assertThat(journal.find("wf", "s1")).contains(recorded.entry());
      assertThat(journal.find(recorded.entry().key())).contains(recorded.entry());
    }
  }

  @Test
  void sameStepReturnsTheSameKeyInTheSameProcessAndAfterReopening() {
    OperationKey first;
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      first = journal.record(Action.of("wf", "s1", "create-note", note("a"))).entry().key();
      Recorded again = journal.record(Action.of("wf", "s1", "create-note", note("a")));
      assertThat(again.isNew()).isFalse();
      assertThat(again.entry().key()).isEqualTo(first);
    }
    try (ActionJournal reopened = ActionJournal.sqlite(file())) {
      Recorded afterRestart = reopened.record(Action.of("wf", "s1", "create-note", note("a")));

      assertThat(afterRestart.isNew()).isFalse();
      assertThat(afterRestart.entry().key()).isEqualTo(first);
      assertThat(reopened.entries("wf")).hasSize(1);
    }
  }

  @Test
  void sameStepWithOtherParametersIsRefusedAsADifferentAction() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      OperationKey key =
          journal.record(Action.of("wf", "s1", "create-note", note("a"))).entry().key();

      assertThatThrownBy(() -> journal.record(Action.of("wf", "s1", "create-note", note("b"))))
          .isInstanceOf(ActionConflictException.class)
          .hasMessageContaining("step s1 of workflow wf")
          .hasMessageContaining("new step id")
          .hasMessageNotContaining("\"a\"")
          .hasMessageNotContaining("\"b\"");
      assertThatThrownBy(() -> journal.record(Action.of("wf", "s1", "delete-note", note("a"))))
          .isInstanceOf(ActionConflictException.class);
      assertThat(journal.entries("wf"))
          .singleElement()
          .extracting(JournalEntry::key)
          .isEqualTo(key);
    }
  }

  @Test
  void parametersAreComparedAsCanonicalJsonNotAsText() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      OperationKey key =
          journal
              .record(Action.of("wf", "s1", "t", Json.parse("{\"a\":1,\"b\":[true,null]}")))
              .entry()
              .key();

      Recorded reordered =
          journal.record(
              Action.of("wf", "s1", "t", Json.parse("{ \"b\": [true, null], \"a\": 1.0 }")));

      assertThat(reordered.isNew()).isFalse();
      assertThat(reordered.entry().key()).isEqualTo(key);
    }
  }

  @Test
  void sameParametersUnderANewStepAreANewActionWithANewKey() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      OperationKey first =
          journal.record(Action.of("wf", "s1", "create-note", note("same"))).entry().key();
      OperationKey second =
          journal.record(Action.of("wf", "s2", "create-note", note("same"))).entry().key();
      OperationKey otherWorkflow =
          journal.record(Action.of("wf-2", "s1", "create-note", note("same"))).entry().key();

      assertThat(Set.of(first, second, otherWorkflow)).hasSize(3);
    }
  }

  @Test
  void keysAreUniqueAndCarry192RandomBits() {
    Set<String> keys = new HashSet<>();
    try (SqliteActionJournal journal = SqliteActionJournal.builder(file()).open()) {
      for (int i = 0; i < 500; i++) {
        keys.add(journal.record(Action.of("wf", "s" + i, "t", note("x"))).entry().key().value());
      }
    }
    // And straight from the generator, without the database, many more.
    var generator = SqliteActionJournal.secureKeys();
    for (int i = 0; i < 100_000; i++) {
      keys.add(generator.get());
    }

    assertThat(keys).hasSize(100_500).allMatch(k -> BASE64URL_192_BITS.matcher(k).matches());
    for (String key : keys) {
      assertThat(Base64.getUrlDecoder().decode(key)).hasSize(24); // 192 bits >= 128
    }
  }

  @Test
  void aMintedKeyThatCollidesIsReplacedByAnother() {
    AtomicInteger minted = new AtomicInteger();
    List<String> sequence = List.of("k-dup", "k-dup", "k-fresh");
    try (ActionJournal journal =
        SqliteActionJournal.builder(file())
            .keys(() -> sequence.get(minted.getAndIncrement()))
            .open()) {
      OperationKey first = journal.record(Action.of("wf", "s1", "t", note("a"))).entry().key();
      OperationKey second = journal.record(Action.of("wf", "s2", "t", note("b"))).entry().key();

      assertThat(first.value()).isEqualTo("k-dup");
      assertThat(second.value()).isEqualTo("k-fresh");
      assertThat(minted).hasValue(3);
    }
  }

  @Test
  void concurrentRecordersOfOneStepInTwoJournalsOnOneFileAgreeOnOneKey() throws Exception {
    int threads = 16;
    try (ActionJournal a = ActionJournal.sqlite(file());
        ActionJournal b = ActionJournal.sqlite(file())) {
      CyclicBarrier barrier = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<Recorded>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          ActionJournal journal = i % 2 == 0 ? a : b;
          results.add(
              pool.submit(
                  () -> {
                    barrier.await();
                    return journal.record(Action.of("wf", "race", "create-note", note("a")));
                  }));
        }
        Set<OperationKey> keys = new HashSet<>();
        int created = 0;
        for (Future<Recorded> result : results) {
          Recorded recorded = result.get(30, TimeUnit.SECONDS);
          keys.add(recorded.entry().key());
          created += recorded.isNew() ? 1 : 0;
        }
        assertThat(keys).hasSize(1);
        assertThat(created).isEqualTo(1);
        assertThat(a.entries("wf")).hasSize(1);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void unfinishedListsPendingAndUnknownActionsInRecordingOrder() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      List<OperationKey> keys = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        keys.add(journal.record(Action.of("wf", "s" + i, "t", note("n" + i))).entry().key());
      }
      journal.record(Action.of("other", "s0", "t", note("x")));
      journal.markCompleted(keys.get(0), new StoredResponse(201, "{\"id\":1}"));
      journal.markUnknown(keys.get(2));
      journal.markRejected(
          keys.get(3), Json.parse("{\"type\":\"about:blank\",\"status\":400,\"title\":\"x\"}"));

      assertThat(journal.unfinished("wf"))
          .extracting(JournalEntry::key, JournalEntry::status)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(keys.get(1), ActionStatus.PENDING),
              org.assertj.core.groups.Tuple.tuple(keys.get(2), ActionStatus.UNKNOWN),
              org.assertj.core.groups.Tuple.tuple(keys.get(4), ActionStatus.PENDING));
      assertThat(journal.workflowsWithUnfinishedActions()).containsExactly("wf", "other");
      assertThat(journal.entries("wf"))
          .extracting(JournalEntry::key)
          .containsExactlyElementsOf(keys);
    }
  }

  @Test
  void finalStatusesAreNeverOverwritten() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      OperationKey key = journal.record(Action.of("wf", "s1", "t", note("a"))).entry().key();
      journal.markUnknown(key);
      JournalEntry completed = journal.markCompleted(key, new StoredResponse(201, "{\"id\":7}"));

      JournalEntry afterUnknown = journal.markUnknown(key);
      JournalEntry afterRejected =
          journal.markRejected(key, Json.parse("{\"type\":\"about:blank\",\"status\":400}"));
      JournalEntry afterSecondCompletion =
          journal.markCompleted(key, new StoredResponse(200, "{\"id\":8}"));

      assertThat(completed.status()).isEqualTo(ActionStatus.COMPLETED);
      assertThat(List.of(afterUnknown, afterRejected, afterSecondCompletion))
          .allSatisfy(
              entry -> {
                assertThat(entry.status()).isEqualTo(ActionStatus.COMPLETED);
                assertThat(entry.response()).contains(new StoredResponse(201, "{\"id\":7}"));
              });
    }
  }

  @Test
  void markingAKeyTheJournalNeverMintedFailsWithoutNamingTheKey() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      assertThatThrownBy(() -> journal.markUnknown(OperationKey.of("secret-key-value")))
          .isInstanceOf(JournalException.class)
          .hasMessageNotContaining("secret-key-value");
    }
  }

  @Test
  void journalRunsInWalModeWithFullSynchronousCommits() throws Exception {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      journal.record(Action.of("wf", "s1", "t", note("a")));
      assertThat(Files.exists(dir.resolve("journal.db-wal"))).isTrue();
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA journal_mode")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("wal"); // WAL is persistent in the file
    }
  }

  @Test
  void journalFileIsReadableByItsOwnerOnly() throws Exception {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      journal.record(Action.of("wf", "s1", "t", note("a")));
    }
    if (Files.getFileStore(file()).supportsFileAttributeView("posix")) {
      assertThat(Files.getPosixFilePermissions(file()))
          .containsExactlyInAnyOrder(
              PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }
  }

  @Test
  void recordedAndUpdatedTimesComeFromTheClock() {
    Instant t0 = Instant.parse("2026-10-14T06:00:00Z");
    try (ActionJournal journal =
        SqliteActionJournal.builder(file()).clock(Clock.fixed(t0, ZoneOffset.UTC)).open()) {
      JournalEntry entry = journal.record(Action.of("wf", "s1", "t", note("a"))).entry();

      assertThat(entry.recordedAt()).isEqualTo(t0);
      assertThat(journal.find("wf", "s1").orElseThrow().recordedAt()).isEqualTo(t0);
    }
  }

  @Test
  void aWriterBlockedByAnotherProcessPastTheBusyTimeoutFailsCleanlyAndTheJournalRecovers()
      throws Exception {
    try (ActionJournal journal =
        SqliteActionJournal.builder(file()).busyTimeout(Duration.ofMillis(100)).open()) {
      try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file());
          Statement st = other.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        assertThatThrownBy(() -> journal.record(Action.of("wf", "s1", "t", note("a"))))
            .isInstanceOf(JournalException.class)
            .hasMessageContaining("could not start a write");
        st.execute("ROLLBACK");
      }

      // The connection is still in auto-commit and transactional: a refused insert rolls back.
      OperationKey key = journal.record(Action.of("wf", "s1", "t", note("a"))).entry().key();
      assertThatThrownBy(() -> journal.record(Action.of("wf", "s1", "t", note("b"))))
          .isInstanceOf(ActionConflictException.class);
      assertThat(journal.entries("wf"))
          .singleElement()
          .extracting(JournalEntry::key)
          .isEqualTo(key);
    }
  }

  @Test
  void toStringsNeverShowParametersOrTheRawKey() {
    try (ActionJournal journal = ActionJournal.sqlite(file())) {
      JournalEntry entry =
          journal.record(Action.of("wf", "s1", "t", note("confidential-title"))).entry();

      assertThat(entry.toString())
          .doesNotContain("confidential-title")
          .doesNotContain(entry.key().value());
      assertThat(entry.action().toString()).doesNotContain("confidential-title");
    }
  }

  @Test
  void actionRefusesBlankIdsAndParametersWithoutJsonForm() {
    assertThatThrownBy(() -> Action.of(" ", "s", "t", note("a")))
        .hasMessageContaining("workflowId");
    assertThatThrownBy(() -> Action.of("wf", "", "t", note("a"))).hasMessageContaining("stepId");
    assertThatThrownBy(() -> Action.of("wf", "s\n1", "t", note("a")))
        .hasMessageContaining("control characters");
    assertThatThrownBy(() -> Action.of("wf", "s", "t", Json.object().put("x", Double.NaN)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
