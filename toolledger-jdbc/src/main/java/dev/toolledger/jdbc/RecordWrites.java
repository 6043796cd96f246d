package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link JdbcTransaction}'s completed record and history rows. On SQLite they are written at
 * once. On PostgreSQL they are held back and go to the server in one round trip with the {@code
 * COMMIT} ({@link #commit}), or before any other statement of the transaction ({@link #flush}),
 * whichever comes first: a new operation saves a round trip, and an effect outside the database,
 * claimed in one transaction and recorded in another, each with a history row, saves one in each.
 * At most one kind is held at a time (each holder flushes the other first), so the server sees the
 * statements in the order they were made.
 */
final class RecordWrites {
  private final Connection connection;
  private final DialectSupport dialect;

  /** The completed record of the operation the transaction claimed, not sent yet (PostgreSQL). */
  private PendingCompletion pending;

  /** History rows the transaction appended and has not sent yet (PostgreSQL). */
  private final List<PendingHistory> history = new ArrayList<>(2);

  private record PendingHistory(TenantId tenant, OperationKey key, HistoryEntry entry) {}

  private record PendingCompletion(
      NewOperation operation, StoredResponse response, Instant completedAt, Instant expiresAt) {}

  /**
   * The completed record of a key reserved under its advisory lock, and the commit, in one round
   * trip. The primary key still backs the insert: a record that a path not holding the lock created
   * meanwhile makes it fail (SQLState 23505), which aborts the transaction before its {@code
   * COMMIT} runs; the tool's effect is rolled back with it and the work is run again, to find that
   * record.
   */
  private static final String INSERT_COMPLETED =
      "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
          + " response_status, response_body, created_at, completed_at, expires_at)"
          + " VALUES (?, ?, ?, ?, ?, 'COMPLETED', ?, ?, ?, ?, ?)";

  private static final String INSERT_COMPLETED_AND_COMMIT = INSERT_COMPLETED + "; COMMIT";

  /** SQLite's insert of the completed record: see {@link #insertCompleted}. */
  private static final String INSERT_COMPLETED_UNLESS_PRESENT =
      INSERT_COMPLETED + " ON CONFLICT (tenant, op_key) DO NOTHING";

  private static final String UNIQUE_VIOLATION = "23505";

  RecordWrites(Connection connection, DialectSupport dialect) {
    this.connection = connection;
    this.dialect = dialect;
  }

  /** Records the completed operation of a key this transaction reserved. */
  void complete(
      NewOperation operation, StoredResponse response, Instant completedAt, Instant expiresAt) {
    if (dialect.kind() == SqlDialect.POSTGRESQL) {
      // Sent with the commit: one round trip less for every new operation.
      flush();
      pending = new PendingCompletion(operation, response, completedAt, expiresAt);
      return;
    }
    insertCompleted(operation, response, completedAt, expiresAt);
  }

  /** Appends a step to an operation's history. */
  void appendHistory(TenantId tenant, OperationKey key, HistoryEntry entry) {
    flushCompletion();
    if (dialect.kind() == SqlDialect.POSTGRESQL) {
      history.add(new PendingHistory(tenant, key, entry));
      return;
    }
    try {
      OperationRows.appendHistory(connection, tenant, key, entry);
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  /** Sends what was held back for the commit now, because something else comes first. */
  void flush() {
    if (!history.isEmpty()) {
      flushHistory();
    }
    flushCompletion();
  }

  /** How many history rows wait for the commit (for tests). */
  int historyHeldBack() {
    return history.size();
  }

  private void flushHistory() {
    List<PendingHistory> rows = List.copyOf(history);
    history.clear();
    try (PreparedStatement ps =
        dialect.statements().prepare(connection, OperationRows.historyInsert(rows.size()))) {
      bindHistory(ps, rows);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  private static void bindHistory(PreparedStatement ps, List<PendingHistory> rows)
      throws SQLException {
    int column = 1;
    for (PendingHistory row : rows) {
      column = OperationRows.bindHistory(ps, column, row.tenant(), row.key(), row.entry());
    }
  }

  private void flushCompletion() {
    PendingCompletion p = pending;
    if (p == null) {
      return;
    }
    pending = null;
    try {
      dialect
          .statements()
          .update(
              connection,
              INSERT_COMPLETED,
              ps -> bindCompleted(ps, p.operation(), p.response(), p.completedAt(), p.expiresAt()));
    } catch (SQLException e) {
      throw recordedMeanwhile(e, p.operation().key());
    }
  }

  /**
   * The completed record of a reserved key could not be inserted. A unique violation means that a
   * path which did not wait for the key's lock created its record meanwhile: the transaction is
   * rolled back (the tool's effect with it), and running the work again finds that record and
   * settles against it.
   */
  private static RuntimeException recordedMeanwhile(SQLException e, OperationKey key) {
    if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
      return new TransientStoreException(
          "operation " + key + " was recorded by another writer while it ran; rolled back", e);
    }
    return new WrappedSqlException(e);
  }

  private static void bindCompleted(
      PreparedStatement ps,
      NewOperation operation,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt)
      throws SQLException {
    ps.setString(1, operation.tenant().value());
    ps.setString(2, operation.key().value());
    ps.setString(3, operation.intent().tool());
    ps.setString(4, operation.intent().toolVersion());
    ps.setString(5, operation.intent().fingerprint().hex());
    ps.setInt(6, response.status());
    ps.setString(7, response.body());
    ps.setLong(8, operation.createdAt().toEpochMilli());
    ps.setLong(9, completedAt.toEpochMilli());
    ps.setLong(10, expiresAt.toEpochMilli());
  }

  /**
   * Commits the transaction: with held-back rows or a held-back completed record, in the same round
   * trip as them (see {@link #INSERT_COMPLETED_AND_COMMIT}); otherwise with the dialect's plain
   * commit.
   */
  void commit() throws SQLException {
    if (!history.isEmpty()) {
      // The rows and the COMMIT in one round trip: an error in the insert makes the server skip
      // the COMMIT (the transaction is then rolled back by the caller), as with a completion.
      List<PendingHistory> rows = List.copyOf(history);
      history.clear();
      try (PreparedStatement ps =
          dialect
              .statements()
              .prepare(connection, OperationRows.historyInsert(rows.size()) + "; COMMIT")) {
        bindHistory(ps, rows);
        ps.execute();
      }
      dialect.commit(connection);
      return;
    }
    PendingCompletion p = pending;
    if (p == null) {
      dialect.commit(connection);
      return;
    }
    pending = null;
    try (PreparedStatement ps =
        dialect.statements().prepare(connection, INSERT_COMPLETED_AND_COMMIT)) {
      bindCompleted(ps, p.operation(), p.response(), p.completedAt(), p.expiresAt());
      ps.execute();
    } catch (SQLException e) {
      if (recordedMeanwhile(e, p.operation().key()) instanceof TransientStoreException retry) {
        throw retry;
      }
      throw e;
    }
    // The driver knows the transaction ended (the server said so); its commit() is then a no-op,
    // which keeps the pool's bookkeeping of the connection as after any commit.
    dialect.commit(connection);
  }

  /** SQLite: the record, written once, complete; the primary key still guards the insert. */
  private void insertCompleted(
      NewOperation operation, StoredResponse response, Instant completedAt, Instant expiresAt) {
    int inserted;
    try {
      inserted =
          dialect
              .statements()
              .update(
                  connection,
                  INSERT_COMPLETED_UNLESS_PRESENT,
                  ps -> bindCompleted(ps, operation, response, completedAt, expiresAt));
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
    if (inserted != 1) {
      throw new StoreException(
          "operation "
              + operation.key()
              + " appeared while this transaction held the write lock; the database's writers"
              + " are not excluding each other");
    }
  }
}
