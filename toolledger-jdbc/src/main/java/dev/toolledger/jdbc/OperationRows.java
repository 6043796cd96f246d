package dev.toolledger.jdbc;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.jdbc.internal.Statements;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reading and writing rows of the operation tables; the SQL of the ledger's own reads. */
final class OperationRows {
  static final String COLUMNS =
      "tenant, op_key, tool, tool_version, fingerprint, state, response_status, response_body,"
          + " created_at, completed_at, expires_at";

  private OperationRows() {}

  static final String SELECT =
      "SELECT " + COLUMNS + " FROM tl_operations WHERE tenant = ? AND op_key = ?";

  static Optional<OperationRecord> select(
      Connection connection, Statements statements, TenantId tenant, OperationKey key)
      throws SQLException {
    return statements.query(
        connection,
        SELECT,
        ps -> {
          ps.setString(1, tenant.value());
          ps.setString(2, key.value());
        },
        rs -> rs.next() ? Optional.of(read(rs, tenant, key)) : Optional.empty());
  }

  static OperationRecord read(ResultSet rs) throws SQLException {
    return read(rs, TenantId.of(rs.getString("tenant")), OperationKey.of(rs.getString("op_key")));
  }

  /**
   * Reads a row whose tenant and key the caller already holds, without parsing them again. The row
   * must have been selected with {@link #COLUMNS}, in that order: columns are read by position,
   * which spares the driver a lookup by name per column on the replay path.
   */
  static OperationRecord read(ResultSet rs, TenantId tenant, OperationKey key) throws SQLException {
    // 1 tenant, 2 op_key, 3 tool, 4 tool_version, 5 fingerprint, 6 state, 7 response_status,
    // 8 response_body, 9 created_at, 10 completed_at, 11 expires_at
    String tool = rs.getString(3);
    Optional<OperationIntent> intent =
        tool == null
            ? Optional.empty()
            : Optional.of(
                new OperationIntent(tool, rs.getString(4), new Fingerprint(rs.getString(5))));
    OperationState state = OperationState.valueOf(rs.getString(6));
    int status = rs.getInt(7);
    String body = rs.getString(8);
    Optional<StoredResponse> response =
        state == OperationState.COMPLETED
            ? Optional.of(new StoredResponse(status, body))
            : Optional.empty();
    Instant createdAt = Instant.ofEpochMilli(rs.getLong(9));
    return new OperationRecord(
        tenant, key, intent, state, response, createdAt, instant(rs, 10), instant(rs, 11));
  }

  static List<HistoryEntry> history(Connection connection, TenantId tenant, OperationKey key)
      throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT at, from_state, to_state, cause, actor, fence FROM tl_operation_history"
                + " WHERE tenant = ? AND op_key = ? ORDER BY seq")) {
      ps.setString(1, tenant.value());
      ps.setString(2, key.value());
      try (ResultSet rs = ps.executeQuery()) {
        List<HistoryEntry> entries = new ArrayList<>();
        while (rs.next()) {
          String from = rs.getString("from_state");
          entries.add(
              new HistoryEntry(
                  Instant.ofEpochMilli(rs.getLong("at")),
                  from == null ? Optional.empty() : Optional.of(OperationState.valueOf(from)),
                  OperationState.valueOf(rs.getString("to_state")),
                  rs.getString("cause"),
                  rs.getString("actor"),
                  rs.getLong("fence")));
        }
        return entries;
      }
    }
  }

  static void appendHistory(
      Connection connection, TenantId tenant, OperationKey key, HistoryEntry entry)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(historyInsert(1))) {
      bindHistory(ps, 1, tenant, key, entry);
      ps.executeUpdate();
    }
  }

  private static final String HISTORY_COLUMNS =
      "INSERT INTO tl_operation_history (tenant, op_key, at, from_state, to_state, cause, actor,"
          + " fence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

  /** An insert of {@code rows} history rows in one statement. */
  static String historyInsert(int rows) {
    if (rows == 1) {
      return HISTORY_COLUMNS;
    }
    return HISTORY_COLUMNS + ", (?, ?, ?, ?, ?, ?, ?, ?)".repeat(rows - 1);
  }

  /** Binds one history row from {@code column} on; returns the next column. */
  static int bindHistory(
      PreparedStatement ps, int column, TenantId tenant, OperationKey key, HistoryEntry entry)
      throws SQLException {
    ps.setString(column, tenant.value());
    ps.setString(column + 1, key.value());
    ps.setLong(column + 2, entry.at().toEpochMilli());
    if (entry.from().isPresent()) {
      ps.setString(column + 3, entry.from().get().name());
    } else {
      ps.setNull(column + 3, Types.VARCHAR);
    }
    ps.setString(column + 4, entry.to().name());
    ps.setString(column + 5, entry.cause());
    ps.setString(column + 6, entry.actor());
    ps.setLong(column + 7, entry.fence());
    return column + 8;
  }

  static Optional<Instant> instant(ResultSet rs, int column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
  }

  static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
    long millis = rs.getLong(column);
    return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
  }

  static void setOptionalLong(PreparedStatement ps, int index, Optional<Instant> value)
      throws SQLException {
    if (value.isPresent()) {
      ps.setLong(index, value.get().toEpochMilli());
    } else {
      ps.setNull(index, Types.BIGINT);
    }
  }
}
