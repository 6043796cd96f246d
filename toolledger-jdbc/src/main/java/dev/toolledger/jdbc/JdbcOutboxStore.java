package dev.toolledger.jdbc;

import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.core.outbox.OutboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The relay's side of the transactional outbox ({@code tl_outbox}): claiming due events under a
 * lease and recording each delivery attempt. Tools write events in their own transaction ({@link
 * OutboxRows.TransactionOutbox}); reached through {@link JdbcLedgerStore}, which is the {@link
 * OutboxStore}.
 */
final class JdbcOutboxStore implements OutboxStore {
  /** Longest error text kept with an event: a downstream's whole error page is not wanted. */
  private static final int MAX_ERROR_CHARS = 500;

  private final DataSource dataSource;
  private final DialectSupport dialect;
  private final StorageFaults faults;
  private final WriteTransactions writes;

  JdbcOutboxStore(StoreConnections connections, StorageFaults faults, WriteTransactions writes) {
    this.dataSource = connections.dataSource();
    this.dialect = connections.dialect();
    this.faults = faults;
    this.writes = writes;
  }

  @Override
  public List<OutboxEvent> claimDue(String owner, Duration lease, int limit) {
    // A relay polls often; an idle poll reads instead of taking SQLite's write lock.
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT 1 FROM tl_outbox WHERE state = 'PENDING' AND next_attempt_at <= "
                    + dialect.nowMillis()
                    + " LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return List.of();
      }
    } catch (SQLException e) {
      throw faults.translate(e, "looking for due outbox events");
    }
    return writes.inTransaction(
        tx ->
            OutboxRows.claimDue(
                ((JdbcTransaction) tx).rawConnection(), dialect, owner, lease, limit));
  }

  @Override
  public boolean markDelivered(String id, String owner) {
    return update(
        OutboxRows.markDeliveredSql(dialect),
        ps -> {
          ps.setString(1, id);
          ps.setString(2, owner);
        });
  }

  @Override
  public boolean markRetry(String id, String owner, Duration retryIn, String error) {
    return update(
        OutboxRows.markRetrySql(dialect),
        ps -> {
          ps.setLong(1, retryIn.toMillis());
          ps.setString(2, truncate(error));
          ps.setString(3, id);
          ps.setString(4, owner);
        });
  }

  @Override
  public boolean markDead(String id, String owner, String error) {
    return update(
        OutboxRows.MARK_DEAD,
        ps -> {
          ps.setString(1, truncate(error));
          ps.setString(2, id);
          ps.setString(3, owner);
        });
  }

  @Override
  public boolean release(String id, String owner) {
    return update(
        OutboxRows.RELEASE,
        ps -> {
          ps.setString(1, id);
          ps.setString(2, owner);
        });
  }

  @Override
  public boolean rearm(String id) {
    return update(OutboxRows.rearmSql(dialect), ps -> ps.setString(1, id));
  }

  @Override
  public Optional<OutboxEvent> findEvent(String id) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT " + OutboxRows.COLUMNS + " FROM tl_outbox WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(OutboxRows.read(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw faults.translate(e, "reading an outbox event");
    }
  }

  @Override
  public List<OutboxEvent> listEvents(OutboxState state, int limit) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT "
                    + OutboxRows.COLUMNS
                    + " FROM tl_outbox WHERE state = ? ORDER BY created_at, id LIMIT ?")) {
      ps.setString(1, state.name());
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<OutboxEvent> events = new ArrayList<>();
        while (rs.next()) {
          events.add(OutboxRows.read(rs));
        }
        return events;
      }
    } catch (SQLException e) {
      throw faults.translate(e, "listing outbox events");
    }
  }

  @Override
  public Map<OutboxState, Long> countEvents() {
    Map<OutboxState, Long> counts = new EnumMap<>(OutboxState.class);
    for (OutboxState state : OutboxState.values()) {
      counts.put(state, 0L);
    }
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement("SELECT state, COUNT(*) FROM tl_outbox GROUP BY state");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        counts.put(OutboxState.valueOf(rs.getString(1)), rs.getLong(2));
      }
      return counts;
    } catch (SQLException e) {
      throw faults.translate(e, "counting outbox events");
    }
  }

  private boolean update(String sql, JdbcTransaction.Binder binder) {
    return writes.inTransaction(
        tx -> {
          try (PreparedStatement ps =
              ((JdbcTransaction) tx).rawConnection().prepareStatement(sql)) {
            binder.bind(ps);
            return ps.executeUpdate() == 1;
          }
        });
  }

  private static String truncate(String text) {
    return text == null || text.length() <= MAX_ERROR_CHARS
        ? text
        : text.substring(0, MAX_ERROR_CHARS) + "...";
  }
}
