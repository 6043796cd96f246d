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
import org.sqlite.SQLiteDataSource;

/**
 * A tool's statements on the guarded connection of a real SQLite file in WAL mode, served from the
 * statement cache: what closing them leaves behind for the next caller of the connection.
 */
class GuardedConnectionTest {
  @TempDir Path dir;
  private SQLiteDataSource sqlite;
  private Connection physical;
  private final Statements statements = Statements.cached();
  private final List<SQLException> observed = new ArrayList<>();
  private Connection guarded;

  @BeforeEach
  void open() throws SQLException {
    sqlite = new SQLiteDataSource();
    sqlite.setUrl("jdbc:sqlite:" + dir.resolve("guarded.db"));
    physical = sqlite.getConnection();
    try (Statement st = physical.createStatement()) {
      st.execute("PRAGMA journal_mode = WAL");
      st.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
      st.execute("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
    }
    guarded = GuardedConnection.wrap(physical, statements, observed::add);
  }

  @AfterEach
  void close() throws SQLException {
    statements.forget(physical);
    physical.close();
  }

  private String nameOf(int id) throws SQLException {
    try (PreparedStatement ps = guarded.prepareStatement("SELECT name FROM items WHERE id = ?")) {
      ps.setInt(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private void renameElsewhere(int id, String name) throws SQLException {
    try (Connection other = sqlite.getConnection();
        PreparedStatement ps = other.prepareStatement("UPDATE items SET name = ? WHERE id = ?")) {
      ps.setString(1, name);
      ps.setInt(2, id);
      ps.executeUpdate();
    }
  }

  @Test
  void aStatementClosedWithItsRowsUnreadLeavesNoSnapshotForTheNextCaller() throws SQLException {
    // execute() says rows are waiting; the tool never asks for them, nor closes a result set.
    try (PreparedStatement ps = guarded.prepareStatement("SELECT name FROM items ORDER BY id")) {
      assertThat(ps.execute()).isTrue();
    }
    // A result set left open by the tool is closed with its statement.
    PreparedStatement open = guarded.prepareStatement("SELECT name FROM items WHERE id = ?");
    open.setInt(1, 1);
    ResultSet rows = open.executeQuery();
    assertThat(rows.next()).isTrue();
    open.close();
    assertThat(rows.isClosed()).isTrue();

    renameElsewhere(1, "uno");

    assertThat(nameOf(1)).isEqualTo("uno");
    assertThat(observed).isEmpty();
  }

  @Test
  void aLentStatementAnswersForTheGuardAndAClosedOneRefusesWork() throws SQLException {
    PreparedStatement first = guarded.prepareStatement("SELECT name FROM items WHERE id = ?");
    first.setInt(1, 2);
    try (ResultSet rs = first.executeQuery()) {
      assertThat(rs.getStatement()).isSameAs(first);
      assertThat(rs.next()).isTrue();
    }
    assertThat(first.getConnection()).isSameAs(guarded);
    first.close();

    assertThat(first.isClosed()).isTrue();
    assertThatThrownBy(first::executeQuery).hasMessageContaining("used after close");
    // The next borrower of the same SQL is served.
    assertThat(nameOf(1)).isEqualTo("one");
    assertThatThrownBy(() -> first.unwrap(PreparedStatement.class))
        .hasMessageContaining("cannot be unwrapped");
  }

  @Test
  void aStatementWhoseWorkFailedIsShownToTheObserverAndTheNextBorrowerStillWrites()
      throws SQLException {
    PreparedStatement failing = guarded.prepareStatement("UPDATE items SET name = ? WHERE id = ?");
    failing.setString(1, null); // name is NOT NULL
    failing.setInt(2, 1);
    assertThatThrownBy(failing::executeUpdate).isInstanceOf(SQLException.class);
    failing.close();

    assertThat(observed).hasSize(1);
    try (PreparedStatement again =
        guarded.prepareStatement("UPDATE items SET name = ? WHERE id = ?")) {
      again.setString(1, "uno");
      again.setInt(2, 1);
      assertThat(again.executeUpdate()).isEqualTo(1);
    }
    assertThat(nameOf(1)).isEqualTo("uno");
  }
}
