package dev.toolledger.jdbc;

import dev.toolledger.api.Outbox;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.OperationState;
import dev.toolledger.core.operation.StoredResponse;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.jdbc.internal.GuardedConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** One open write transaction of a {@link JdbcLedgerStore}. */
final class JdbcTransaction implements LedgerTransaction {
  private final Connection connection;
  private final Connection guarded;
  private final DialectSupport dialect;
  private final Map<OperationId, Outbox> outboxes = new HashMap<>();
  boolean rollbackOnly;

  /**
   * The first storage fault met on this transaction's connection, by the store's own statements or
   * by the tool's: whatever the tool then throws, the transaction failed because of the storage.
   */
  private volatile SQLException storageFault;

  /**
   * A key claimed by reservation: on a database whose write transactions exclude each other, the
   * claim read that the key is free and the record is inserted, complete, by {@link #complete}.
   */
  private NewOperation reserved;

  /**
   * On PostgreSQL, the outcome of the operation this transaction claimed, not sent yet: it goes to
   * the server in one round trip with the {@code COMMIT} ({@link #commit}), or before any other
   * statement of this transaction, whichever comes first.
   */
  private PendingCompletion pending;

  /**
   * On PostgreSQL, history rows this transaction appended and has not sent yet: they go to the
   * server in one round trip with the {@code COMMIT}, or before any other statement of this
   * transaction. An effect outside the database is claimed in one transaction and recorded in
   * another, each with a history row; holding the row back saves a round trip in each.
   */
  private final List<PendingHistory> history = new ArrayList<>(2);

  private record PendingHistory(TenantId tenant, OperationKey key, HistoryEntry entry) {}

  private record PendingCompletion(
      TenantId tenant,
      OperationKey key,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt) {}

  /**
   * The claimed row's completion and the commit in one round trip. The row was inserted by this
   * transaction's claim, so the update must change exactly one row; the division by the count of
   * updated rows turns any other count into an error (SQLState 22012) that aborts the transaction
   * before its {@code COMMIT} runs, so an effect is never committed without its record. PostgreSQL
   * skips the rest of the pipeline after an error, and the driver sends both statements before it
   * waits for an answer.
   */
  private static final String COMPLETE_AND_COMMIT =
      "WITH done AS (UPDATE tl_operations SET state = 'COMPLETED', response_status = ?,"
          + " response_body = ?, completed_at = ?, expires_at = ?, owner = NULL,"
          + " lease_until = NULL, parameters = NULL"
          + " WHERE tenant = ? AND op_key = ? AND fence = 1 AND state = 'IN_PROGRESS'"
          + " RETURNING 1)"
          + " SELECT 1 / CAST(COUNT(*) AS INTEGER) FROM done; COMMIT";

  private static final String DIVISION_BY_ZERO = "22012";

  JdbcTransaction(Connection connection, DialectSupport dialect) {
    this.connection = connection;
    this.guarded = GuardedConnection.wrap(connection, dialect.statements(), this::observe);
    this.dialect = dialect;
  }

  private void observe(SQLException e) {
    if (storageFault == null && dialect.isStorageFault(e)) {
      storageFault = e;
    }
  }

  /** The storage fault this transaction's connection met, if any. */
  SQLException storageFault() {
    return storageFault;
  }

  @Override
  public Connection connection() {
    flushPending();
    return guarded;
  }

  /** The unguarded connection, for the store's own statements. */
  Connection rawConnection() {
    return connection;
  }

  @Override
  public SqlDialect dialect() {
    return dialect.kind();
  }

  @Override
  public Optional<OperationRecord> find(TenantId tenant, OperationKey key) {
    flushPending();
    try {
      return OperationRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @Override
  public Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key) {
    flushPending();
    try {
      return RetentionRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @Override
  public ClaimResult claim(NewOperation operation, Duration maxWait) {
    flushPending();
    if (dialect.serializesWriters()) {
      // This transaction holds the database's only write lock (BEGIN IMMEDIATE): nobody can insert
      // the key (or sweep it) before this transaction ends, so reading it is a claim. The record is
      // written once, complete; the primary key still guards that insert. The tombstone is read
      // only when the key has no record: an in-process index probe, not a round trip.
      try {
        Optional<OperationRecord> existing =
            OperationRows.select(
                connection, dialect.statements(), operation.tenant(), operation.key());
        if (existing.isPresent()) {
          return new ClaimResult.Existing(existing.get());
        }
        Optional<Tombstone> tombstone =
            RetentionRows.select(
                connection, dialect.statements(), operation.tenant(), operation.key());
        if (tombstone.isPresent() && tombstone.get().isLiveAt(operation.createdAt())) {
          return new ClaimResult.Expired(tombstone.get());
        }
      } catch (SQLException e) {
        throw new JdbcLedgerStore.WrappedSqlException(e);
      }
      reserved = operation;
      return new ClaimResult.Claimed(1);
    }
    // The tombstone check is part of the claim's own statement: no extra round trip for a new key.
    return insertClaim(
        operation,
        maxWait,
        "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
            + " created_at) SELECT ?, ?, ?, ?, ?, 'IN_PROGRESS', ? WHERE "
            + RetentionRows.NO_LIVE_TOMBSTONE
            + " ON CONFLICT (tenant, op_key) DO NOTHING",
        null);
  }

  @Override
  public ClaimResult claimLeased(NewOperation operation, LeaseClaim lease, Duration maxWait) {
    flushPending();
    return insertClaim(
        operation,
        maxWait,
        "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
            + " created_at, owner, lease_until, fence, parameters)"
            + " SELECT ?, ?, ?, ?, ?, 'IN_PROGRESS', ?, ?, "
            + dialect.nowMillis()
            + " + ?, 1, ? WHERE "
            + RetentionRows.NO_LIVE_TOMBSTONE
            + " ON CONFLICT (tenant, op_key) DO NOTHING",
        lease);
  }

  private ClaimResult insertClaim(
      NewOperation operation, Duration maxWait, String sql, LeaseClaim lease) {
    try {
      boolean waitChanged = dialect.beforeClaim(connection, maxWait);
      int inserted;
      try (PreparedStatement ps = dialect.statements().prepare(connection, sql)) {
        ps.setString(1, operation.tenant().value());
        ps.setString(2, operation.key().value());
        ps.setString(3, operation.intent().tool());
        ps.setString(4, operation.intent().toolVersion());
        ps.setString(5, operation.intent().fingerprint().hex());
        ps.setLong(6, operation.createdAt().toEpochMilli());
        int next = 7;
        if (lease != null) {
          ps.setString(next++, lease.owner());
          ps.setLong(next++, lease.lease().toMillis());
          ps.setString(next++, lease.parameters());
        }
        ps.setString(next++, operation.tenant().value());
        ps.setString(next++, operation.key().value());
        ps.setLong(next, operation.createdAt().toEpochMilli());
        inserted = ps.executeUpdate();
      } catch (SQLException e) {
        if (dialect.isClaimWaitExceeded(e)) {
          rollbackOnly = true;
          return new ClaimResult.Contended();
        }
        throw e;
      }
      dialect.afterClaim(connection, waitChanged);
      if (inserted == 1) {
        return new ClaimResult.Claimed(1);
      }
      if (lease != null && ownClaim(operation, lease)) {
        // This very claim committed in an earlier attempt whose acknowledgement was lost (a
        // connection dropped during COMMIT): it is still ours, untouched.
        return new ClaimResult.Claimed(1);
      }
      // Nothing inserted: the key has a record, or a live tombstone. Each statement at READ
      // COMMITTED reads what was committed before it started, so this sees the record the claim
      // conflicted with (or the tombstone of a sweep that removed it meanwhile).
      Optional<OperationRecord> existing =
          OperationRows.select(
              connection, dialect.statements(), operation.tenant(), operation.key());
      if (existing.isPresent()) {
        return new ClaimResult.Existing(existing.get());
      }
      Optional<Tombstone> tombstone =
          RetentionRows.select(
              connection, dialect.statements(), operation.tenant(), operation.key());
      if (tombstone.isPresent() && tombstone.get().isLiveAt(operation.createdAt())) {
        return new ClaimResult.Expired(tombstone.get());
      }
      // The record the claim met was swept (its tombstone window is over) in between: the key is
      // free; claim it again from the start.
      throw new TransientStoreException(
          "the key's record was swept while it was being claimed", null);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  /** Whether the key's row is this claim itself: same owner token, first fence, in progress. */
  private boolean ownClaim(NewOperation operation, LeaseClaim lease) throws SQLException {
    try (PreparedStatement ps =
        dialect
            .statements()
            .prepare(
                connection,
                "SELECT owner, fence, state FROM tl_operations WHERE tenant = ? AND op_key = ?")) {
      ps.setString(1, operation.tenant().value());
      ps.setString(2, operation.key().value());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            && lease.owner().equals(rs.getString("owner"))
            && rs.getLong("fence") == 1
            && "IN_PROGRESS".equals(rs.getString("state"));
      }
    }
  }

  @Override
  public void complete(
      TenantId tenant,
      OperationKey key,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt) {
    if (reserved != null && reserved.tenant().equals(tenant) && reserved.key().equals(key)) {
      insertCompleted(reserved, response, completedAt, expiresAt);
      reserved = null;
      return;
    }
    flushPending();
    if (dialect.kind() == SqlDialect.POSTGRESQL) {
      // Sent with the commit: one round trip less for every new operation.
      pending = new PendingCompletion(tenant, key, response, completedAt, expiresAt);
      return;
    }
    if (!completeFenced(tenant, key, 1, response, completedAt, expiresAt)) {
      throw notInProgress(key);
    }
  }

  private static StoreException notInProgress(OperationKey key) {
    return new StoreException(
        "operation " + key + " was not IN_PROGRESS when its outcome was recorded");
  }

  /**
   * Sends what was held back for the commit now, because something else comes first. At most one
   * kind is held at a time (each holder flushes the other first), so the server sees the statements
   * in the order they were made.
   */
  private void flushPending() {
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
      throw new JdbcLedgerStore.WrappedSqlException(e);
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
    if (!completeFenced(p.tenant(), p.key(), 1, p.response(), p.completedAt(), p.expiresAt())) {
      throw notInProgress(p.key());
    }
  }

  /**
   * Commits this transaction: with a held-back completion, in the same round trip as it (see {@link
   * #COMPLETE_AND_COMMIT}); otherwise with the dialect's plain commit.
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
    try (PreparedStatement ps = dialect.statements().prepare(connection, COMPLETE_AND_COMMIT)) {
      ps.setInt(1, p.response().status());
      ps.setString(2, p.response().body());
      ps.setLong(3, p.completedAt().toEpochMilli());
      ps.setLong(4, p.expiresAt().toEpochMilli());
      ps.setString(5, p.tenant().value());
      ps.setString(6, p.key().value());
      ps.execute();
    } catch (SQLException e) {
      if (DIVISION_BY_ZERO.equals(e.getSQLState())) {
        throw notInProgress(p.key());
      }
      throw e;
    }
    // The driver knows the transaction ended (the server said so); its commit() is then a no-op,
    // which keeps the pool's bookkeeping of the connection as after any commit.
    dialect.commit(connection);
  }

  private void insertCompleted(
      NewOperation operation, StoredResponse response, Instant completedAt, Instant expiresAt) {
    boolean inserted =
        update(
            "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
                + " response_status, response_body, created_at, completed_at, expires_at)"
                + " VALUES (?, ?, ?, ?, ?, 'COMPLETED', ?, ?, ?, ?, ?)"
                + " ON CONFLICT (tenant, op_key) DO NOTHING",
            ps -> {
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
            });
    if (!inserted) {
      throw new StoreException(
          "operation "
              + operation.key()
              + " appeared while this transaction held the write lock; the database's writers"
              + " are not excluding each other");
    }
  }

  @Override
  public boolean completeFenced(
      TenantId tenant,
      OperationKey key,
      long fence,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt) {
    return update(
        "UPDATE tl_operations SET state = 'COMPLETED', response_status = ?, response_body = ?,"
            + " completed_at = ?, expires_at = ?, owner = NULL, lease_until = NULL,"
            + " parameters = NULL"
            + " WHERE tenant = ? AND op_key = ? AND fence = ? AND state = 'IN_PROGRESS'",
        ps -> {
          ps.setInt(1, response.status());
          ps.setString(2, response.body());
          ps.setLong(3, completedAt.toEpochMilli());
          ps.setLong(4, expiresAt.toEpochMilli());
          ps.setString(5, tenant.value());
          ps.setString(6, key.value());
          ps.setLong(7, fence);
        });
  }

  @Override
  public boolean settleFenced(
      TenantId tenant,
      OperationKey key,
      long fence,
      OperationState to,
      Instant at,
      Optional<Instant> expiresAt) {
    if (to != OperationState.UNKNOWN && to != OperationState.NOT_EXECUTED) {
      throw new IllegalArgumentException("settle moves to UNKNOWN or NOT_EXECUTED, not " + to);
    }
    // UNKNOWN keeps its parameters: whoever investigates it may need them. NOT_EXECUTED is final.
    String parameters = to == OperationState.NOT_EXECUTED ? ", parameters = NULL" : "";
    return update(
        "UPDATE tl_operations SET state = ?, completed_at = ?, expires_at = ?, owner = NULL,"
            + " lease_until = NULL"
            + parameters
            + " WHERE tenant = ? AND op_key = ? AND fence = ? AND state = 'IN_PROGRESS'",
        ps -> {
          ps.setString(1, to.name());
          if (to == OperationState.NOT_EXECUTED) {
            ps.setLong(2, at.toEpochMilli());
          } else {
            ps.setNull(2, Types.BIGINT);
          }
          OperationRows.setOptionalLong(ps, 3, expiresAt);
          ps.setString(4, tenant.value());
          ps.setString(5, key.value());
          ps.setLong(6, fence);
        });
  }

  @Override
  public boolean release(TenantId tenant, OperationKey key, long fence) {
    return update(
        "DELETE FROM tl_operations WHERE tenant = ? AND op_key = ? AND fence = ?"
            + " AND state = 'IN_PROGRESS'",
        ps -> {
          ps.setString(1, tenant.value());
          ps.setString(2, key.value());
          ps.setLong(3, fence);
        });
  }

  @Override
  public OptionalLong takeOver(
      TenantId tenant, OperationKey key, long fence, String owner, Duration lease) {
    boolean taken =
        update(
            "UPDATE tl_operations SET owner = ?, fence = fence + 1, lease_until = "
                + dialect.nowMillis()
                + " + ? WHERE tenant = ? AND op_key = ? AND fence = ? AND state = 'IN_PROGRESS'"
                + " AND lease_until IS NOT NULL AND lease_until < "
                + dialect.nowMillis(),
            ps -> {
              ps.setString(1, owner);
              ps.setLong(2, lease.toMillis());
              ps.setString(3, tenant.value());
              ps.setString(4, key.value());
              ps.setLong(5, fence);
            });
    return taken ? OptionalLong.of(fence + 1) : OptionalLong.empty();
  }

  @Override
  public boolean fenceUnseen(TenantId tenant, OperationKey key, Instant at, Instant expiresAt) {
    boolean fenced =
        update(
            "INSERT INTO tl_operations (tenant, op_key, state, created_at, completed_at,"
                + " expires_at, fence) SELECT ?, ?, 'NOT_EXECUTED', ?, ?, ?, 0 WHERE "
                + RetentionRows.NO_LIVE_TOMBSTONE
                + " ON CONFLICT (tenant, op_key) DO NOTHING",
            ps -> {
              ps.setString(1, tenant.value());
              ps.setString(2, key.value());
              ps.setLong(3, at.toEpochMilli());
              ps.setLong(4, at.toEpochMilli());
              ps.setLong(5, expiresAt.toEpochMilli());
              ps.setString(6, tenant.value());
              ps.setString(7, key.value());
              ps.setLong(8, at.toEpochMilli());
            });
    if (fenced && !dialect.serializesWriters()) {
      // Unlike a request, an inquiry does not read the key first. If a sweep removed the key's
      // record while this insert waited for it, the insert's snapshot missed the sweep's
      // tombstone: look again with a fresh one and leave the key to the tombstone.
      Optional<Tombstone> tombstone = findTombstone(tenant, key);
      if (tombstone.isPresent() && tombstone.get().isLiveAt(at)) {
        rollbackOnly = true;
        return false;
      }
    }
    return fenced;
  }

  @Override
  public int sweepExpired(Instant now, Duration tombstoneWindow, int limit) {
    flushPending();
    try {
      return RetentionRows.sweepExpired(connection, dialect, now, tombstoneWindow, limit);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @Override
  public int pruneTombstones(Instant now, int limit) {
    flushPending();
    try {
      return RetentionRows.pruneTombstones(connection, dialect, now, limit);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @Override
  public boolean resolveUnknown(
      TenantId tenant,
      OperationKey key,
      OperationState to,
      Optional<StoredResponse> response,
      Instant at,
      Instant expiresAt) {
    if ((to == OperationState.COMPLETED) != response.isPresent()
        || (to != OperationState.COMPLETED && to != OperationState.NOT_EXECUTED)) {
      throw new IllegalArgumentException(
          "an UNKNOWN operation resolves to COMPLETED with a response or NOT_EXECUTED without");
    }
    return update(
        "UPDATE tl_operations SET state = ?, response_status = ?, response_body = ?,"
            + " completed_at = ?, expires_at = ?, parameters = NULL"
            + " WHERE tenant = ? AND op_key = ? AND state = 'UNKNOWN'",
        ps -> {
          ps.setString(1, to.name());
          if (response.isPresent()) {
            ps.setInt(2, response.get().status());
            ps.setString(3, response.get().body());
          } else {
            ps.setNull(2, Types.INTEGER);
            ps.setNull(3, Types.VARCHAR);
          }
          ps.setLong(4, at.toEpochMilli());
          ps.setLong(5, expiresAt.toEpochMilli());
          ps.setString(6, tenant.value());
          ps.setString(7, key.value());
        });
  }

  @Override
  public void appendHistory(TenantId tenant, OperationKey key, HistoryEntry entry) {
    flushCompletion();
    if (dialect.kind() == SqlDialect.POSTGRESQL) {
      history.add(new PendingHistory(tenant, key, entry));
      return;
    }
    try {
      OperationRows.appendHistory(connection, tenant, key, entry);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  /**
   * One outbox per operation and transaction: event ids are numbered per outbox, so a tool that
   * asks for the outbox before each event must get the same one, or its events would get the same
   * ids.
   */
  @Override
  public Outbox outbox(TenantId tenant, OperationKey key) {
    flushPending();
    return outboxes.computeIfAbsent(
        new OperationId(tenant, key),
        id -> new OutboxRows.TransactionOutbox(connection, dialect, tenant, key));
  }

  private record OperationId(TenantId tenant, OperationKey key) {}

  private boolean update(String sql, Binder binder) {
    flushPending();
    try (PreparedStatement ps = dialect.statements().prepare(connection, sql)) {
      binder.bind(ps);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }
}
