package dev.toolledger.client.journal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The journal's numbered migrations, tracked in SQLite's {@code user_version}. Each runs once, in
 * its own {@code BEGIN IMMEDIATE} transaction, so two processes opening a new file at once cannot
 * both apply it.
 */
final class JournalSchema {
  private JournalSchema() {}

  /** Migration n (1-based) is element n - 1. Append only; never edit a released one. */
  static final List<List<String>> MIGRATIONS =
      List.of(
          List.of(
              "CREATE TABLE tl_journal ("
                  + " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                  + " op_key TEXT NOT NULL UNIQUE,"
                  + " workflow_id TEXT NOT NULL,"
                  + " step_id TEXT NOT NULL,"
                  + " tool TEXT NOT NULL,"
                  + " parameters TEXT NOT NULL,"
                  + " status TEXT NOT NULL"
                  + "   CHECK (status IN ('PENDING', 'COMPLETED', 'REJECTED', 'UNKNOWN')),"
                  + " response_status INTEGER,"
                  + " response_body TEXT,"
                  + " problem TEXT,"
                  + " recorded_at INTEGER NOT NULL,"
                  + " updated_at INTEGER NOT NULL,"
                  + " UNIQUE (workflow_id, step_id))",
              "CREATE INDEX tl_journal_unfinished ON tl_journal (status, seq)"
                  + " WHERE status IN ('PENDING', 'UNKNOWN')"));

  static void migrate(Connection connection) throws SQLException {
    for (int version = 1; version <= MIGRATIONS.size(); version++) {
      try (Statement st = connection.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        try {
          int current = userVersion(st);
          if (current > MIGRATIONS.size()) {
            throw new JournalException(
                "the action journal has schema version "
                    + current
                    + ", newer than this client knows ("
                    + MIGRATIONS.size()
                    + "); upgrade the client");
          }
          if (current < version) {
            for (String sql : MIGRATIONS.get(version - 1)) {
              st.execute(sql);
            }
            st.execute("PRAGMA user_version = " + version);
          }
          st.execute("COMMIT");
        } catch (SQLException | RuntimeException e) {
          try {
            st.execute("ROLLBACK");
          } catch (SQLException suppressed) {
            e.addSuppressed(suppressed);
          }
          throw e;
        }
      }
    }
  }

  private static int userVersion(Statement st) throws SQLException {
    try (ResultSet rs = st.executeQuery("PRAGMA user_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
