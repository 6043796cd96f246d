package dev.toolledger.jdbc;

import dev.toolledger.api.Outbox;
import dev.toolledger.api.OutboxMessage;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Sha256;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/** The outbox table's SQL. */
final class OutboxRows {
  static final String COLUMNS =
      "id, tenant, topic, aggregate, destination, payload, state, attempts, next_attempt_at,"
          + " last_error, created_at, delivered_at";

  private OutboxRows() {}

  /**
   * Enqueues into the transaction's connection. Event ids are derived from the operation and the
   * event's position in it, so a transaction that is retried after a transient error produces the
   * same ids again, and only one attempt's events ever commit.
   */
  static final class TransactionOutbox implements Outbox {
    private final Connection connection;
    private final DialectSupport dialect;
    private final TenantId tenant;
    private final OperationKey key;
    private int sequence;

    TransactionOutbox(
        Connection connection, DialectSupport dialect, TenantId tenant, OperationKey key) {
      this.connection = connection;
      this.dialect = dialect;
      this.tenant = tenant;
      this.key = key;
    }

    @Override
    public String enqueue(OutboxMessage message) {
      String id = eventId(tenant, key, ++sequence);
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO tl_outbox (id, tenant, op_key, topic, aggregate, destination, payload,"
                  + " state, attempts, next_attempt_at, created_at)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, 'PENDING', 0, "
                  + dialect.nowMillis()
                  + ", "
                  + dialect.nowMillis()
                  + ")")) {
        ps.setString(1, id);
        ps.setString(2, tenant.value());
        ps.setString(3, key.value());
        ps.setString(4, message.topic());
        ps.setString(5, message.aggregate());
        ps.setString(6, message.destination().toString());
        ps.setString(7, Json.write(message.payload()));
        ps.executeUpdate();
        return id;
      } catch (SQLException e) {
        throw new WrappedSqlException(e);
      }
    }
  }

  static String eventId(TenantId tenant, OperationKey key, int sequence) {
    MessageDigest sha = Sha256.digest();
    sha.update("toolledger/event/v1\0".getBytes(StandardCharsets.US_ASCII));
    sha.update(tenant.value().getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) 0);
    sha.update(key.value().getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) 0);
    sha.update(Integer.toString(sequence).getBytes(StandardCharsets.US_ASCII));
    return "evt_" + HexFormat.of().formatHex(sha.digest(), 0, 16);
  }

  static List<OutboxEvent> claimDue(
      Connection connection, DialectSupport dialect, String owner, Duration lease, int limit)
      throws SQLException {
    String now = dialect.nowMillis();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE tl_outbox SET claimed_by = ?, claimed_until = "
                + now
                + " + ? WHERE id IN (SELECT id FROM tl_outbox WHERE state = 'PENDING'"
                + " AND next_attempt_at <= "
                + now
                + " AND (claimed_until IS NULL OR claimed_until < "
                + now
                + ") ORDER BY next_attempt_at LIMIT ?"
                + dialect.skipLocked()
                + ") RETURNING "
                + COLUMNS)) {
      ps.setString(1, owner);
      ps.setLong(2, lease.toMillis());
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<OutboxEvent> events = new ArrayList<>();
        while (rs.next()) {
          events.add(read(rs));
        }
        return events;
      }
    }
  }

  static String markDeliveredSql(DialectSupport dialect) {
    return "UPDATE tl_outbox SET state = 'DELIVERED', attempts = attempts + 1, delivered_at = "
        + dialect.nowMillis()
        + ", last_error = NULL, claimed_by = NULL, claimed_until = NULL"
        + " WHERE id = ? AND claimed_by = ? AND state = 'PENDING'";
  }

  static String markRetrySql(DialectSupport dialect) {
    return "UPDATE tl_outbox SET attempts = attempts + 1, next_attempt_at = "
        + dialect.nowMillis()
        + " + ?, last_error = ?, claimed_by = NULL, claimed_until = NULL"
        + " WHERE id = ? AND claimed_by = ? AND state = 'PENDING'";
  }

  /** Gives a claimed event back untouched: no attempt counted, due as it was. */
  static final String RELEASE =
      "UPDATE tl_outbox SET claimed_by = NULL, claimed_until = NULL"
          + " WHERE id = ? AND claimed_by = ? AND state = 'PENDING'";

  static final String MARK_DEAD =
      "UPDATE tl_outbox SET state = 'DEAD', attempts = attempts + 1, last_error = ?,"
          + " claimed_by = NULL, claimed_until = NULL"
          + " WHERE id = ? AND claimed_by = ? AND state = 'PENDING'";

  static String rearmSql(DialectSupport dialect) {
    return "UPDATE tl_outbox SET state = 'PENDING', attempts = 0, next_attempt_at = "
        + dialect.nowMillis()
        + ", claimed_by = NULL, claimed_until = NULL WHERE id = ? AND state = 'DEAD'";
  }

  static OutboxEvent read(ResultSet rs) throws SQLException {
    return new OutboxEvent(
        rs.getString("id"),
        TenantId.of(rs.getString("tenant")),
        rs.getString("topic"),
        rs.getString("aggregate"),
        URI.create(rs.getString("destination")),
        rs.getString("payload"),
        OutboxState.valueOf(rs.getString("state")),
        rs.getInt("attempts"),
        Instant.ofEpochMilli(rs.getLong("next_attempt_at")),
        Optional.ofNullable(rs.getString("last_error")),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        OperationRows.instant(rs, "delivered_at"));
  }
}
