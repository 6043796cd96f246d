package dev.toolledger.jdbc;

import dev.toolledger.api.Outbox;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.UncertainCommitException;
import dev.toolledger.jdbc.internal.GuardedConnection;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One open write transaction of a {@link JdbcLedgerStore}: the ledger's statements on one
 * connection, and that connection's guarded view for the tool. How it claims a key is {@link
 * KeyClaims}'s; how it writes a completed record and history rows (held back for the {@code COMMIT}
 * on PostgreSQL) is {@link RecordWrites}'s.
 */
final class JdbcTransaction implements LedgerTransaction {
  private final Connection connection;

  /** The tool's view of the connection, made when a tool first asks for it. */
  private Connection guarded;

  private final DialectSupport dialect;
  private final RecordWrites records;
  private final Map<OperationId, Outbox> outboxes = new HashMap<>();
  boolean rollbackOnly;

  /**
   * The first storage fault met on this transaction's connection, by the store's own statements or
   * by the tool's: whatever the tool then throws, the transaction failed because of the storage.
   */
  private volatile SQLException storageFault;

  /**
   * A key claimed by reservation: the claim read that the key is free while nobody else could
   * create its record (SQLite: this transaction holds the database's only write lock; PostgreSQL:
   * it holds the key's advisory lock, {@link KeyLocks}), and the record is inserted, complete, by
   * {@link #complete}.
   */
  private NewOperation reserved;

  /**
   * A leased claim that this transaction found committed by an earlier attempt of the same work
   * (its answer lost): the claim's history row committed with it and is not appended twice.
   */
  private OperationId claimFoundCommitted;

  /**
   * Whether the claim found the key taken (recorded or guarded by a tombstone) after reading it
   * under its lock, before this transaction wrote anything: it was given no transaction id and
   * wrote no WAL, and it is rolled back. Such a transaction is not a write transaction.
   */
  boolean decidedWithoutWriting;

  JdbcTransaction(Connection connection, DialectSupport dialect) {
    this.connection = connection;
    this.dialect = dialect;
    this.records = new RecordWrites(connection, dialect);
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
    records.flush();
    if (guarded == null) {
      // Made on first use: a transaction whose work never reaches the connection (a replay
      // decided by the claim, the store's own batches) pays no proxy.
      guarded = GuardedConnection.wrap(connection, dialect.statements(), this::observe);
    }
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
    records.flush();
    try {
      return OperationRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  @Override
  public Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key) {
    records.flush();
    try {
      return RetentionRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  @Override
  public ClaimResult claim(NewOperation operation, Duration maxWait) {
    records.flush();
    try {
      if (dialect.serializesWriters()) {
        // This transaction holds the database's only write lock (BEGIN IMMEDIATE): nobody can
        // insert the key (or sweep it) before this transaction ends, so reading it is a claim. The
        // record is written once, complete; the primary key still guards that insert.
        ClaimResult result = KeyClaims.underWriteLock(connection, dialect, operation);
        if (result instanceof ClaimResult.Claimed) {
          reserved = operation;
        }
        return result;
      }
      // A free key is reserved and its record inserted once, complete, with the COMMIT; a taken
      // key ends this transaction before it wrote anything.
      ClaimResult result = KeyClaims.underKeyLock(connection, dialect, operation, maxWait);
      if (result instanceof ClaimResult.Claimed) {
        reserved = operation;
      } else if (result instanceof ClaimResult.Contended) {
        rollbackOnly = true;
      } else {
        decidedWithoutWriting = true;
        rollbackOnly = true;
      }
      return result;
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  @Override
  public ClaimResult claimLeased(NewOperation operation, LeaseClaim lease, Duration maxWait) {
    records.flush();
    try {
      ClaimResult result =
          KeyClaims.leased(
              connection,
              dialect,
              operation,
              lease,
              maxWait,
              () -> claimFoundCommitted = new OperationId(operation.tenant(), operation.key()));
      if (result instanceof ClaimResult.Contended) {
        rollbackOnly = true;
      }
      return result;
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  @Override
  public void complete(
      TenantId tenant,
      OperationKey key,
      StoredResponse response,
      Instant completedAt,
      Instant expiresAt) {
    if (reserved == null || !reserved.tenant().equals(tenant) || !reserved.key().equals(key)) {
      throw notInProgress(key);
    }
    NewOperation operation = reserved;
    reserved = null;
    records.complete(operation, response, completedAt, expiresAt);
  }

  private static StoreException notInProgress(OperationKey key) {
    return new StoreException(
        "operation " + key + " was not claimed by this transaction when its outcome was recorded");
  }

  /** How many history rows wait for the commit (for tests). */
  int historyHeldBack() {
    return records.historyHeldBack();
  }

  /** Commits this transaction, with what {@link RecordWrites} held back in the same round trip. */
  void commit() throws SQLException {
    try {
      records.commit();
    } catch (SQLException e) {
      String state = e.getSQLState();
      if (state != null && state.startsWith("08")) {
        // Class 08, connection exception: the COMMIT may have reached the server and committed
        // before the link broke or its answer timed out. Never report that as "nothing happened".
        throw new UncertainCommitException(
            "the connection failed while committing (SQLState "
                + state
                + "); the transaction may have committed",
            e);
      }
      throw e;
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
  public OptionalLong fenceOf(TenantId tenant, OperationKey key) {
    try (PreparedStatement ps =
        dialect
            .statements()
            .prepare(
                connection, "SELECT fence FROM tl_operations WHERE tenant = ? AND op_key = ?")) {
      ps.setString(1, tenant.value());
      ps.setString(2, key.value());
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
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
    if (dialect.kind() == SqlDialect.POSTGRESQL) {
      // Waits for a transaction that holds the key (a tool running under its lock), as the
      // insert below would wait for a row that transaction had inserted.
      lockKey(tenant, key);
    }
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
    records.flush();
    try {
      return RetentionRows.sweepExpired(connection, dialect, now, tombstoneWindow, limit);
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  @Override
  public int pruneTombstones(Instant now, int limit) {
    records.flush();
    try {
      return RetentionRows.pruneTombstones(connection, dialect, now, limit);
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
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
    if (claimFoundCommitted != null
        && claimFoundCommitted.equals(new OperationId(tenant, key))
        && entry.from().isEmpty()
        && entry.to() == OperationState.IN_PROGRESS) {
      // The claim's own history row committed with it, in the attempt whose answer was lost.
      claimFoundCommitted = null;
      return;
    }
    records.appendHistory(tenant, key, entry);
  }

  /**
   * One outbox per operation and transaction: event ids are numbered per outbox, so a tool that
   * asks for the outbox before each event must get the same one, or its events would get the same
   * ids.
   */
  @Override
  public Outbox outbox(TenantId tenant, OperationKey key) {
    records.flush();
    return outboxes.computeIfAbsent(
        new OperationId(tenant, key),
        id -> new OutboxRows.TransactionOutbox(connection, dialect, tenant, key));
  }

  private record OperationId(TenantId tenant, OperationKey key) {}

  private void lockKey(TenantId tenant, OperationKey key) {
    records.flush();
    try (PreparedStatement ps = dialect.statements().prepare(connection, KeyLocks.LOCK)) {
      ps.setLong(1, KeyLocks.of(tenant, key));
      ps.execute();
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  private boolean update(String sql, Binder binder) {
    records.flush();
    try {
      return dialect.statements().update(connection, sql, binder::bind) == 1;
    } catch (SQLException e) {
      throw new WrappedSqlException(e);
    }
  }

  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }
}
