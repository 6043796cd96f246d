package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code keyed-floor-decided} is a floor only while it does what it says: on a real SQLite file and
 * a real PostgreSQL server, each run writes one note and one completed row and commits them, and
 * the key is really read before the note is written: a key that already has a row, or a tombstone,
 * stops the run before its effect.
 */
class KeyedFloorDecidedTest {
  @TempDir static Path dir;

  private static PostgresTestDatabase database;
  private static Target sqlite;
  private static Target postgres;

  @BeforeAll
  static void start() {
    sqlite = Target.sqlite("sqlite-full", dir.resolve("decided.db"), Synchronous.FULL);
    database = PostgresTestDatabase.create();
    postgres = Target.postgres(database.url());
  }

  @AfterAll
  static void close() {
    if (sqlite != null) {
      sqlite.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (database != null) {
      database.close();
    }
  }

  static Stream<String> stores() {
    return Stream.of("sqlite", "postgresql");
  }

  private static Target target(String store) {
    return store.equals("sqlite") ? sqlite : postgres;
  }

  @ParameterizedTest
  @MethodSource("stores")
  void eachRunCommitsOneNoteAndOneCompletedRow(String store) throws Exception {
    Target target = target(store);
    AtomicLong keys = new AtomicLong(1_000_000);
    long notes = count(target, "SELECT COUNT(*) FROM notes");
    long rows = count(target, "SELECT COUNT(*) FROM bench_floor WHERE state = 'COMPLETED'");

    try (DefinedScenario scenario = FloorScenarios.keyedFloorDecided(target, keys)) {
      for (int i = 0; i < 20; i++) {
        scenario.run(i % 2, i);
      }
    }

    // Counted from another connection: only what was committed.
    assertThat(count(target, "SELECT COUNT(*) FROM notes")).isEqualTo(notes + 20);
    assertThat(count(target, "SELECT COUNT(*) FROM bench_floor WHERE state = 'COMPLETED'"))
        .isEqualTo(rows + 20);
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aKeyWithARowStopsTheRunBeforeItsEffect(String store) throws Exception {
    String key =
        runWithTheNextKeyAlreadyTaken(
            target(store),
            2_000_000,
            "INSERT INTO bench_floor (tenant, op_key, state, created_at) VALUES (?, ?, 'COMPLETED',"
                + " 1)");

    assertThat(
            count(target(store), "SELECT COUNT(*) FROM bench_floor WHERE op_key = '" + key + "'"))
        .isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aKeyWithATombstoneStopsTheRunBeforeItsEffect(String store) throws Exception {
    String key =
        runWithTheNextKeyAlreadyTaken(
            target(store),
            3_000_000,
            "INSERT INTO bench_floor_tombstones (tenant, op_key, expired_at, tombstone_until)"
                + " VALUES (?, ?, 1, 2)");

    assertThat(
            count(target(store), "SELECT COUNT(*) FROM bench_floor WHERE op_key = '" + key + "'"))
        .isZero();
  }

  /**
   * Takes the key the scenario will use next with {@code insert} (tenant and key bound), runs the
   * scenario once, and checks that it refused the key and wrote no note; returns the key.
   */
  private static String runWithTheNextKeyAlreadyTaken(Target target, long start, String insert)
      throws Exception {
    AtomicLong keys = new AtomicLong(start);
    String next = Scenarios.newKey(target, new AtomicLong(start));
    try (Connection c = target.store.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(insert)) {
      ps.setString(1, Target.TENANT.value());
      ps.setString(2, next);
      ps.executeUpdate();
    }
    long notes = count(target, "SELECT COUNT(*) FROM notes");

    try (DefinedScenario scenario = FloorScenarios.keyedFloorDecided(target, keys)) {
      assertThatThrownBy(() -> scenario.run(0, 0)).hasMessageContaining("a new key was found");
    }

    assertThat(count(target, "SELECT COUNT(*) FROM notes")).isEqualTo(notes);
    return next;
  }

  @Test
  void itsTombstonesHaveTheLedgersTombstoneColumnsAndIndex() throws Exception {
    // The floor reads the pages the claim reads only while the two tables have one shape.
    String columns =
        "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || IFNULL(dflt_value, '')"
            + " || ' ' || pk FROM pragma_table_info('%s') ORDER BY cid";
    String indexes =
        "SELECT replace(sql, '%s', 'T') FROM sqlite_master"
            + " WHERE type = 'index' AND tbl_name = '%1$s' AND sql IS NOT NULL ORDER BY 1";
    assertThat(rows(sqlite, columns.formatted("bench_floor_tombstones")))
        .isNotEmpty()
        .isEqualTo(rows(sqlite, columns.formatted("tl_tombstones")));
    assertThat(rows(sqlite, indexes.formatted("bench_floor_tombstones")))
        .hasSize(1)
        .isEqualTo(rows(sqlite, indexes.formatted("tl_tombstones")));
  }

  private static long count(Target target, String sql) throws Exception {
    try (Connection c = target.store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static List<String> rows(Target target, String sql) throws Exception {
    try (Connection c = target.store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      List<String> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
      return rows;
    }
  }
}
