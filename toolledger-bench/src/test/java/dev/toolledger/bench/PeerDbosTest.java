package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer scenarios do what they claim, on a real PostgreSQL server with DBOS Transact itself: a
 * first run of a workflow id inserts one note, a second run of the same id inserts nothing and
 * answers the first run's note, and DBOS does not compare the arguments of a second run with the
 * first's (what docs/benchmarks.md states about its guarantees).
 */
class PeerDbosTest {
  private static PostgresTestDatabase database;
  private static Target target;
  private final AtomicLong keys = new AtomicLong();

  @TempDir Path dir;

  @BeforeAll
  static void launchDbos() {
    database = PostgresTestDatabase.create();
    target = Target.postgres(database.url());
    target.dbos();
  }

  @AfterAll
  static void close() {
    if (target != null) {
      target.close();
    }
    database.close();
  }

  @Test
  void eachPeerCreateInsertsExactlyOneNote() throws Exception {
    Scenario scenario = EngineScenarios.peerDbosCreate(target, keys);
    long before = notes();
    for (int i = 0; i < 20; i++) {
      scenario.run(0, i);
    }
    assertThat(notes()).isEqualTo(before + 20);
  }

  @Test
  void aPeerReplayInsertsNothingAndAnswersTheFirstRunsNote() throws Exception {
    Scenario scenario = EngineScenarios.peerDbosReplay(target);
    long before = notes();
    // run() throws unless DBOS answers the note of the first run of that id.
    for (int i = 0; i < 50; i++) {
      scenario.run(i % 4, i);
    }
    assertThat(notes()).isEqualTo(before);
  }

  @Test
  void theReplayIdsWereCompletedOnceEachBeforeTheRun() throws Exception {
    DbosPeer dbos = target.dbos();
    long distinct =
        java.util.stream.IntStream.range(0, DbosPeer.REPLAY_IDS)
            .mapToLong(dbos::replayNote)
            .distinct()
            .count();
    assertThat(distinct).isEqualTo(DbosPeer.REPLAY_IDS);
  }

  @Test
  void dbosAnswersTheFirstRunToTheSameIdWithOtherArguments() throws Exception {
    DbosPeer dbos = target.dbos();
    String id = "conflict-" + Target.randomHex(4);
    long before = notes();

    long first = dbos.createWithTitle(id, "first title");
    long second = dbos.createWithTitle(id, "another title");

    // No conflict is raised: the second call is answered with the first call's note.
    assertThat(second).isEqualTo(first);
    assertThat(notes()).isEqualTo(before + 1);
    assertThat(title(first)).isEqualTo("first title");
  }

  @Test
  void thePeerScenariosRunOnPostgresqlOnlyBesideKeyedCreateAndReplay() {
    try (Target sqlite = Target.sqlite("sqlite-full", dir.resolve("s.db"), Synchronous.FULL)) {
      assertThat(sqlite.scenarios())
          .extracting(Scenario::name)
          .containsExactlyElementsOf(
              Scenarios.NAMES.stream().filter(n -> !n.startsWith("peer-")).toList());
    }
    // The order the scenarios run in is the order the report and the chart show them.
    assertThat(target.scenarios())
        .extracting(Scenario::name)
        .containsExactlyElementsOf(Scenarios.NAMES)
        .containsSubsequence("keyed-create", "peer-dbos-create", "replay", "peer-dbos-replay");
  }

  private static long notes() throws Exception {
    try (var connection = target.store.dataSource().getConnection();
        var st = connection.createStatement();
        var rs = st.executeQuery("SELECT COUNT(*) FROM notes")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String title(long id) throws Exception {
    try (var connection = target.store.dataSource().getConnection();
        var ps = connection.prepareStatement("SELECT title FROM notes WHERE id = ?")) {
      ps.setLong(1, id);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
