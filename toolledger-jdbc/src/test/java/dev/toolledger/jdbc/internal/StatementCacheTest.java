package dev.toolledger.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteConnectionConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The cache's unwrapped paths ({@link Statements#query}, {@link Statements#update}) on a real
 * SQLite file.
 */
class StatementCacheTest {
  private static final String SELECT = "SELECT name FROM items WHERE id = ?";

  @TempDir Path dir;
  private Connection connection;
  private final Statements statements = Statements.cached();

  @BeforeEach
  void open() throws SQLException {
    SQLiteDataSource sqlite = new SQLiteDataSource();
    sqlite.setUrl("jdbc:sqlite:" + dir.resolve("cache.db"));
    connection = sqlite.getConnection();
    try (Statement st = connection.createStatement()) {
      st.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
      st.execute("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
    }
  }

  @AfterEach
  void close() throws SQLException {
    statements.forget(connection);
    connection.close();
  }

  private String name(int id, List<PreparedStatement> used) throws SQLException {
    return statements.query(
        connection,
        SELECT,
        ps -> {
          used.add(ps);
          ps.setInt(1, id);
        },
        rs -> rs.next() ? rs.getString(1) : null);
  }

  @Test
  void queriesOfOneConnectionReuseOneStatementAndSeeTheirOwnParameters() throws SQLException {
    List<PreparedStatement> used = new ArrayList<>();

    assertThat(name(1, used)).isEqualTo("one");
    assertThat(name(2, used)).isEqualTo("two");
    assertThat(name(3, used)).isNull();

    assertThat(used).hasSize(3);
    assertThat(used.get(1)).isSameAs(used.get(0));
    assertThat(used.get(2)).isSameAs(used.get(0));
    assertThat(used.get(0).isClosed()).isFalse();
  }

  @Test
  void aStatementWhoseWorkThrewIsClosedAndTheNextQueryGetsAFreshOne() throws SQLException {
    List<PreparedStatement> used = new ArrayList<>();
    assertThat(name(1, used)).isEqualTo("one");

    assertThatThrownBy(
            () ->
                statements.query(
                    connection,
                    SELECT,
                    ps -> {},
                    rs -> {
                      // As a driver reports a failed step: the statement may be unusable now.
                      throw new SQLException("disk I/O error", "HY000", 10);
                    }))
        .isInstanceOf(SQLException.class);

    assertThat(used.get(0).isClosed()).isTrue();
    assertThat(name(2, used)).isEqualTo("two");
    assertThat(used.get(1)).isNotSameAs(used.get(0));
  }

  @Test
  void aQueryLeavesNoReadSnapshotSoTheNextOneSeesAWriteCommittedByAnotherConnection()
      throws SQLException {
    try (Statement wal = connection.createStatement()) {
      wal.execute("PRAGMA journal_mode = WAL");
    }
    List<PreparedStatement> used = new ArrayList<>();
    assertThat(name(1, used)).isEqualTo("one");
    // A query whose reader stops before the last row: its result set must still be closed (and
    // its statement reset), or the connection would keep reading the snapshot it started in.
    Boolean hadARow =
        statements.query(
            connection, "SELECT name FROM items ORDER BY id", ps -> {}, rs -> rs.next());
    assertThat(hadARow).isTrue();

    SQLiteDataSource sqlite = new SQLiteDataSource();
    sqlite.setUrl("jdbc:sqlite:" + dir.resolve("cache.db"));
    try (Connection writer = sqlite.getConnection();
        Statement st = writer.createStatement()) {
      st.execute("UPDATE items SET name = 'uno' WHERE id = 1");
      st.execute("INSERT INTO items VALUES (3, 'three')");
    }

    assertThat(name(1, used)).isEqualTo("uno");
    assertThat(name(3, used)).isEqualTo("three");
    assertThat(used.get(2)).isSameAs(used.get(0));
  }

  private int rename(int id, String name, List<PreparedStatement> used) throws SQLException {
    return statements.update(
        connection,
        "UPDATE items SET name = ? WHERE id = ?",
        ps -> {
          used.add(ps);
          ps.setString(1, name);
          ps.setInt(2, id);
        });
  }

  @Test
  void updatesOfOneConnectionReuseOneStatementAndCountTheRowsTheyChanged() throws SQLException {
    List<PreparedStatement> used = new ArrayList<>();

    assertThat(rename(1, "uno", used)).isEqualTo(1);
    assertThat(rename(9, "nine", used)).isZero();

    assertThat(used.get(1)).isSameAs(used.get(0));
    assertThat(used.get(0).isClosed()).isFalse();
    assertThat(name(1, new ArrayList<>())).isEqualTo("uno");
  }

  @Test
  void anUpdateThatFailedIsClosedAndTheNextOneGetsAFreshStatement() throws SQLException {
    List<PreparedStatement> used = new ArrayList<>();
    assertThat(rename(1, "uno", used)).isEqualTo(1);

    // name is NOT NULL: the step fails, as a write refused by the file would.
    assertThatThrownBy(() -> rename(2, null, used)).isInstanceOf(SQLException.class);

    assertThat(used.get(1).isClosed()).isTrue();
    assertThat(rename(2, "dos", used)).isEqualTo(1);
    assertThat(used.get(2)).isNotSameAs(used.get(0));
  }

  @Test
  void theLedgersOwnInsertSkipsTheDriversKeyQueryAndLeavesTheConnectionsSettingAsItWas()
      throws SQLException {
    SQLiteConnectionConfig config = connection.unwrap(SQLiteConnection.class).getConnectionConfig();
    assertThat(config.isGetGeneratedKeys()).isTrue();
    List<PreparedStatement> used = new ArrayList<>();

    statements.update(
        connection,
        "INSERT INTO items (id, name) VALUES (?, ?)",
        ps -> {
          used.add(ps);
          ps.setInt(1, 7);
          ps.setString(2, "seven");
        });

    // The driver answers getGeneratedKeys() from a query it runs right after an insert, when the
    // connection asks for keys; this insert ran without it, and the setting is back on.
    try (ResultSet keys = used.get(0).getGeneratedKeys()) {
      assertThat(keys.next()).isFalse();
    }
    assertThat(config.isGetGeneratedKeys()).isTrue();
    // A tool's insert on the same connection still gets its key.
    try (PreparedStatement tool =
        connection.prepareStatement(
            "INSERT INTO items (name) VALUES ('tool')", Statement.RETURN_GENERATED_KEYS)) {
      tool.executeUpdate();
      try (ResultSet keys = tool.getGeneratedKeys()) {
        assertThat(keys.next()).isTrue();
        assertThat(keys.getLong(1)).isEqualTo(8);
      }
    }
  }
}
