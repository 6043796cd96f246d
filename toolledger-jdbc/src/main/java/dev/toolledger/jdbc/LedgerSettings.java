package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import dev.toolledger.protocol.NotApi;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Settings that every node sharing one ledger must agree on, kept in the ledger ({@code
 * tl_settings}): the first node to start with a setting records it, and a node that starts later
 * with another value is told so ({@link #reconcile}). Values are compared as strings; callers give
 * a setting the same spelling on every node.
 */
@NotApi
public final class LedgerSettings {
  private final DataSource dataSource;
  private final DialectSupport dialect;

  LedgerSettings(DataSource dataSource, DialectSupport dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /**
   * A setting whose value in the ledger is not this node's.
   *
   * @param recorded the ledger's value
   * @param mine this node's value
   * @param recordedBy the node that recorded the ledger's value
   */
  public record Difference(String name, String recorded, String mine, String recordedBy) {
    public Difference {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
      return name
          + ": the ledger has "
          + recorded
          + " (from "
          + recordedBy
          + "), this node "
          + mine;
    }
  }

  /**
   * Records the settings the ledger does not hold yet and compares the others with {@code mine}.
   * Two nodes starting at once with different values cannot both record theirs: the first insert
   * wins (the primary key decides), and the other sees a difference.
   *
   * @param adopt overwrite the ledger's value of every differing setting with this node's (an
   *     operator changing the settings on purpose); the differences are still returned
   * @return the settings whose recorded value differed from this node's, in {@code mine}'s order
   */
  public List<Difference> reconcile(
      Map<String, String> mine, boolean adopt, String nodeId, Instant now) {
    try (Connection connection = dataSource.getConnection()) {
      try (PreparedStatement insert =
          connection.prepareStatement(
              "INSERT INTO tl_settings (name, value, set_by, set_at) VALUES (?, ?, ?, ?)"
                  + " ON CONFLICT (name) DO NOTHING")) {
        for (Map.Entry<String, String> setting : mine.entrySet()) {
          insert.setString(1, setting.getKey());
          insert.setString(2, setting.getValue());
          insert.setString(3, nodeId);
          insert.setLong(4, now.toEpochMilli());
          insert.executeUpdate();
        }
      }
      Map<String, String[]> recorded = read(connection);
      List<Difference> differences = new ArrayList<>();
      for (Map.Entry<String, String> setting : mine.entrySet()) {
        String[] row = recorded.get(setting.getKey());
        if (row != null && !row[0].equals(setting.getValue())) {
          differences.add(new Difference(setting.getKey(), row[0], setting.getValue(), row[1]));
        }
      }
      if (adopt && !differences.isEmpty()) {
        try (PreparedStatement update =
            connection.prepareStatement(
                "UPDATE tl_settings SET value = ?, set_by = ?, set_at = ? WHERE name = ?")) {
          for (Difference difference : differences) {
            update.setString(1, difference.mine());
            update.setString(2, nodeId);
            update.setLong(3, now.toEpochMilli());
            update.setString(4, difference.name());
            update.executeUpdate();
          }
        }
      }
      return differences;
    } catch (SQLException e) {
      throw new StoreException(
          "cannot read or record the ledger's settings (SQLState " + e.getSQLState() + ")", e);
    }
  }

  /** Every recorded setting and its value. */
  public Map<String, String> recorded() {
    try (Connection connection = dataSource.getConnection()) {
      Map<String, String> values = new LinkedHashMap<>();
      read(connection).forEach((name, row) -> values.put(name, row[0]));
      return values;
    } catch (SQLException e) {
      throw new StoreException(
          "cannot read the ledger's settings (SQLState " + e.getSQLState() + ")", e);
    }
  }

  private static Map<String, String[]> read(Connection connection) throws SQLException {
    Map<String, String[]> rows = new LinkedHashMap<>();
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT name, value, set_by FROM tl_settings ORDER BY name");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        rows.put(rs.getString(1), new String[] {rs.getString(2), rs.getString(3)});
      }
    }
    return rows;
  }

  @Override
  public String toString() {
    return "LedgerSettings[" + dialect.kind() + "]";
  }
}
