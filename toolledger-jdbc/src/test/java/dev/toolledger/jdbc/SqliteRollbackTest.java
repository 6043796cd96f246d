package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the SQLite dialect rolls back, on a real file: a transaction SQLite already ended is told
 * apart from one still open by asking SQLite (by result code and behaviour), not by the text of its
 * message.
 */
class SqliteRollbackTest {
  @TempDir Path dir;

  private Connection open() throws Exception {
    Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
    try (Statement st = connection.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)");
    }
    return connection;
  }

  @Test
  void aTransactionThatSqliteAlreadyEndedCountsAsRolledBackAndLeavesNoneOpen() throws Exception {
    SqliteSupport sqlite = new SqliteSupport(Duration.ZERO);
    try (Connection connection = open()) {
      sqlite.begin(connection);
      try (Statement st = connection.createStatement()) {
        st.execute("INSERT INTO t VALUES (1)");
        // The transaction ends behind the store's back.
        st.execute("COMMIT");
      }

      assertThat(sqlite.rollback(connection)).isTrue();

      // Nothing was left open by the probe: another connection can write at once.
      try (Connection other = open();
          Statement st = other.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        st.execute("INSERT INTO t VALUES (2)");
        st.execute("COMMIT");
      }
    }
  }

  @Test
  void anOpenTransactionIsRolledBack() throws Exception {
    SqliteSupport sqlite = new SqliteSupport(Duration.ZERO);
    try (Connection connection = open()) {
      sqlite.begin(connection);
      try (Statement st = connection.createStatement()) {
        st.execute("INSERT INTO t VALUES (1)");
      }

      assertThat(sqlite.rollback(connection)).isTrue();

      try (Statement st = connection.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM t")) {
        rs.next();
        assertThat(rs.getLong(1)).isZero();
      }
    }
  }
}
