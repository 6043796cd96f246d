package dev.toolledger.jdbc.ops;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Read-only queries for operators: operations listed and counted by state, tool and tenant, and the
 * counts that need attention. Every operator of the ledger sees every tenant; keep this away from
 * tenants' requests.
 *
 * <p>Cost: the attention counts read only small partial indexes (operations {@code UNKNOWN} or
 * {@code IN_PROGRESS}, outbox events {@code PENDING} or {@code DEAD}), so they may be polled every
 * few seconds. {@link #countByStateAndTool()} and lists of {@code COMPLETED} or {@code
 * NOT_EXECUTED} operations, or of a key without its tenant, read the whole operations table: fine
 * for an operator's request, not for a loop.
 */
public final class OperationCatalog {
  private static final String COLUMNS =
      "tenant, op_key, tool, state, response_status, created_at, completed_at, owner, lease_until,"
          + " fence";

  private final JdbcLedgerStore store;

  private OperationCatalog(JdbcLedgerStore store) {
    this.store = store;
  }

  /** The catalog of an open store; it does not own the store. */
  public static OperationCatalog of(JdbcLedgerStore store) {
    return new OperationCatalog(Objects.requireNonNull(store, "store"));
  }

  /** The operations that match, newest first unless the filter asks for the oldest first. */
  public List<OperationSummary> list(OperationFilter filter) {
    StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM tl_operations WHERE 1 = 1");
    List<Object> arguments = new ArrayList<>();
    // The state is written as a literal (from the enum, never from input) so that the planners of
    // both databases can use the partial indexes on a state; a bound parameter would hide it.
    filter
        .state()
        .ifPresent(state -> sql.append(" AND state = '").append(state.name()).append("'"));
    filter
        .tenant()
        .ifPresent(
            tenant -> {
              sql.append(" AND tenant = ?");
              arguments.add(tenant.value());
            });
    filter
        .key()
        .ifPresent(
            key -> {
              sql.append(" AND op_key = ?");
              arguments.add(key.value());
            });
    filter
        .tool()
        .ifPresent(
            tool -> {
              sql.append(" AND tool = ?");
              arguments.add(tool);
            });
    filter
        .createdBefore()
        .ifPresent(
            before -> {
              sql.append(" AND created_at < ?");
              arguments.add(before.toEpochMilli());
            });
    String direction = filter.oldestFirst() ? "ASC" : "DESC";
    sql.append(" ORDER BY created_at ")
        .append(direction)
        .append(", tenant, op_key LIMIT ")
        .append(filter.limit());
    try (Connection connection = store.dataSource().getConnection();
        PreparedStatement ps = connection.prepareStatement(sql.toString())) {
      for (int i = 0; i < arguments.size(); i++) {
        ps.setObject(i + 1, arguments.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        List<OperationSummary> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(read(rs));
        }
        return rows;
      }
    } catch (SQLException e) {
      throw failure(e, "listing operations");
    }
  }

  /** How many operations each tool has in each state (reads the whole operations table). */
  public List<StateCount> countByStateAndTool() {
    try (Connection connection = store.dataSource().getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT state, tool, COUNT(*) FROM tl_operations GROUP BY state, tool"
                    + " ORDER BY state, tool");
        ResultSet rs = ps.executeQuery()) {
      List<StateCount> counts = new ArrayList<>();
      while (rs.next()) {
        counts.add(
            new StateCount(
                OperationState.valueOf(rs.getString(1)),
                Optional.ofNullable(rs.getString(2)),
                rs.getLong(3)));
      }
      return counts;
    } catch (SQLException e) {
      throw failure(e, "counting operations");
    }
  }

  /**
   * The counts that need attention, from partial indexes only.
   *
   * @param staleBefore an {@code IN_PROGRESS} operation created before this counts as stale
   */
  public Attention attention(Instant staleBefore) {
    try (Connection connection = store.dataSource().getConnection()) {
      long unknown =
          count(connection, "SELECT COUNT(*) FROM tl_operations WHERE state = 'UNKNOWN'", null);
      long stale =
          count(
              connection,
              "SELECT COUNT(*) FROM tl_operations WHERE state = 'IN_PROGRESS' AND created_at < ?",
              staleBefore.toEpochMilli());
      long pending = 0;
      long dead = 0;
      try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT state, COUNT(*) FROM tl_outbox WHERE state IN ('PENDING', 'DEAD')"
                      + " GROUP BY state");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (OutboxState.PENDING.name().equals(rs.getString(1))) {
            pending = rs.getLong(2);
          } else {
            dead = rs.getLong(2);
          }
        }
      }
      return new Attention(unknown, stale, pending, dead);
    } catch (SQLException e) {
      throw failure(e, "counting operations that need attention");
    }
  }

  private static long count(Connection connection, String sql, Long argument) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      if (argument != null) {
        ps.setLong(1, argument);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static OperationSummary read(ResultSet rs) throws SQLException {
    int status = rs.getInt("response_status");
    Optional<Integer> recorded = rs.wasNull() ? Optional.empty() : Optional.of(status);
    long leaseUntil = rs.getLong("lease_until");
    Optional<Instant> lease =
        rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(leaseUntil));
    long completedAt = rs.getLong("completed_at");
    Optional<Instant> completed =
        rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(completedAt));
    OperationState state = OperationState.valueOf(rs.getString("state"));
    return new OperationSummary(
        TenantId.of(rs.getString("tenant")),
        OperationKey.of(rs.getString("op_key")),
        Optional.ofNullable(rs.getString("tool")),
        state,
        state == OperationState.COMPLETED ? recorded : Optional.empty(),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        completed,
        Optional.ofNullable(rs.getString("owner")),
        lease,
        rs.getLong("fence"));
  }

  private static StoreException failure(SQLException e, String doing) {
    return new StoreException(
        "database error while "
            + doing
            + " (SQLState "
            + e.getSQLState()
            + ", code "
            + e.getErrorCode()
            + ")",
        e);
  }
}
