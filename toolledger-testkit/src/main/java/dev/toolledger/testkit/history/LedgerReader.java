package dev.toolledger.testkit.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a tenant's ledger and the reference tool's effects (rows of {@code notes}) straight from
 * the database, SQLite or PostgreSQL, bypassing every node.
 */
public final class LedgerReader {
  private LedgerReader() {}

  /**
   * Reads the run's notes and operation records of one tenant.
   *
   * @param keyByTitle the key that asked for each note title (a run gives every key its own title;
   *     see {@link History#keyByParameter})
   */
  public static LedgerContents notes(
      Connection connection, String tenant, Map<String, String> keyByTitle) throws SQLException {
    Map<String, LedgerContents.Operation> operations = new HashMap<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT op_key, state, response_status, response_body FROM tl_operations"
                + " WHERE tenant = ?")) {
      ps.setString(1, tenant);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString(1);
          String body = rs.getString(4);
          operations.put(
              key,
              new LedgerContents.Operation(
                  key, rs.getString(2), rs.getInt(3), body == null ? "" : body));
        }
      }
    }
    Map<String, Integer> effects = new HashMap<>();
    List<String> stray = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT number, title FROM notes WHERE tenant = ? ORDER BY number")) {
      ps.setString(1, tenant);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = keyByTitle.get(rs.getString(2));
          if (key == null) {
            stray.add("note " + rs.getLong(1) + " titled " + rs.getString(2));
          } else {
            effects.merge(key, 1, Integer::sum);
          }
        }
      }
    }
    return new LedgerContents(operations, effects, stray);
  }
}
