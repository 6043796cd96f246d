package dev.toolledger.jdbc;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.jdbc.internal.Statements;
import dev.toolledger.protocol.OperationKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of retention: tombstones, and the sweep that turns expired operations into them.
 *
 * <p>A sweep batch is one statement that deletes up to N expired operations and returns them,
 * {@code DELETE ... WHERE (tenant, op_key) IN (SELECT ... LIMIT N)}, then one batched statement
 * each for their tombstones, history and delivered outbox events. On PostgreSQL the inner select
 * locks its rows {@code FOR UPDATE SKIP LOCKED}, so sweepers on several nodes take disjoint batches
 * without waiting for each other; on SQLite the batch runs under the database's write lock ({@code
 * BEGIN IMMEDIATE}), one writer at a time, so the clause is not needed.
 */
final class RetentionRows {
  private RetentionRows() {}

  /** Only final operations are ever swept, whatever their times say. */
  private static final String SWEEPABLE = "state IN ('COMPLETED', 'NOT_EXECUTED')";

  /** A tombstone's columns, in the order {@link #readAt} reads them. */
  static final String TOMBSTONE_COLUMNS = "tool, fingerprint, expired_at, tombstone_until";

  static final String SELECT_TOMBSTONE =
      "SELECT " + TOMBSTONE_COLUMNS + " FROM tl_tombstones WHERE tenant = ? AND op_key = ?";

  /**
   * The condition, for the claim's own statement, that no tombstone live at a given time guards the
   * key; it takes (tenant, op_key, now).
   */
  static final String NO_LIVE_TOMBSTONE =
      "NOT EXISTS (SELECT 1 FROM tl_tombstones WHERE tenant = ? AND op_key = ?"
          + " AND tombstone_until > ?)";

  static Optional<Tombstone> select(
      Connection connection, Statements statements, TenantId tenant, OperationKey key)
      throws SQLException {
    return statements.query(
        connection,
        SELECT_TOMBSTONE,
        ps -> {
          ps.setString(1, tenant.value());
          ps.setString(2, key.value());
        },
        rs -> read(rs, tenant, key));
  }

  /**
   * The tombstone in the current row of {@code rs}, whose columns from {@code first} on are {@link
   * #TOMBSTONE_COLUMNS}, all null when an outer join found none (its {@code tombstone_until} is
   * never null otherwise).
   */
  static Optional<Tombstone> readAt(ResultSet rs, int first, TenantId tenant, OperationKey key)
      throws SQLException {
    long until = rs.getLong(first + 3);
    if (rs.wasNull()) {
      return Optional.empty();
    }
    String fingerprint = rs.getString(first + 1);
    return Optional.of(
        new Tombstone(
            tenant,
            key,
            Optional.ofNullable(rs.getString(first)),
            Optional.ofNullable(fingerprint).map(Fingerprint::new),
            Instant.ofEpochMilli(rs.getLong(first + 2)),
            Instant.ofEpochMilli(until)));
  }

  /** The tombstone in a result of {@link #SELECT_TOMBSTONE}, if it has a row. */
  static Optional<Tombstone> read(ResultSet rs, TenantId tenant, OperationKey key)
      throws SQLException {
    return rs.next() ? readAt(rs, 1, tenant, key) : Optional.empty();
  }

  /** An operation the sweep deleted. */
  private record Swept(
      String tenant, String key, String tool, String fingerprint, long expiresAt) {}

  static int sweepExpired(
      Connection connection, DialectSupport dialect, Instant now, Duration window, int limit)
      throws SQLException {
    List<Swept> swept = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "DELETE FROM tl_operations WHERE (tenant, op_key) IN ("
                + "SELECT tenant, op_key FROM tl_operations WHERE expires_at <= ? AND "
                + SWEEPABLE
                + " ORDER BY expires_at LIMIT ?"
                + dialect.skipLocked()
                + ") AND "
                + SWEEPABLE
                + " RETURNING tenant, op_key, tool, fingerprint, expires_at")) {
      ps.setLong(1, now.toEpochMilli());
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          swept.add(
              new Swept(
                  rs.getString("tenant"),
                  rs.getString("op_key"),
                  rs.getString("tool"),
                  rs.getString("fingerprint"),
                  rs.getLong("expires_at")));
        }
      }
    }
    if (swept.isEmpty()) {
      return 0;
    }
    long nowMillis = now.toEpochMilli();
    try (PreparedStatement tombstones =
            connection.prepareStatement(
                "INSERT INTO tl_tombstones (tenant, op_key, tool, fingerprint, expired_at,"
                    + " tombstone_until) VALUES (?, ?, ?, ?, ?, ?)"
                    // A tombstone whose window ended may still be there, unpruned, from an
                    // earlier operation of the same key.
                    + " ON CONFLICT (tenant, op_key) DO UPDATE SET tool = excluded.tool,"
                    + " fingerprint = excluded.fingerprint, expired_at = excluded.expired_at,"
                    + " tombstone_until = excluded.tombstone_until");
        PreparedStatement history =
            connection.prepareStatement(
                "DELETE FROM tl_operation_history WHERE tenant = ? AND op_key = ?");
        PreparedStatement outbox =
            connection.prepareStatement(
                "DELETE FROM tl_outbox WHERE tenant = ? AND op_key = ? AND state = 'DELIVERED'")) {
      boolean anyTombstone = false;
      for (Swept op : swept) {
        long until = saturatedAdd(op.expiresAt(), window.toMillis());
        if (until > nowMillis) {
          tombstones.setString(1, op.tenant());
          tombstones.setString(2, op.key());
          tombstones.setString(3, op.tool());
          tombstones.setString(4, op.fingerprint());
          tombstones.setLong(5, op.expiresAt());
          tombstones.setLong(6, until);
          tombstones.addBatch();
          anyTombstone = true;
        }
        history.setString(1, op.tenant());
        history.setString(2, op.key());
        history.addBatch();
        outbox.setString(1, op.tenant());
        outbox.setString(2, op.key());
        outbox.addBatch();
      }
      if (anyTombstone) {
        tombstones.executeBatch();
      }
      history.executeBatch();
      outbox.executeBatch();
    }
    return swept.size();
  }

  static int pruneTombstones(Connection connection, DialectSupport dialect, Instant now, int limit)
      throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "DELETE FROM tl_tombstones WHERE (tenant, op_key) IN ("
                + "SELECT tenant, op_key FROM tl_tombstones WHERE tombstone_until <= ?"
                + " ORDER BY tombstone_until LIMIT ?"
                + dialect.skipLocked()
                + ") AND tombstone_until <= ?")) {
      ps.setLong(1, now.toEpochMilli());
      ps.setInt(2, limit);
      ps.setLong(3, now.toEpochMilli());
      return ps.executeUpdate();
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
