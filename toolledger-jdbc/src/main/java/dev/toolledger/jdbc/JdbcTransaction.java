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
import dev.toolledger.core.store.UncertainCommitException;
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

  /** The tool's view of the connection, made when a tool first asks for it. */
  private Connection guarded;

  private final DialectSupport dialect;
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
   * Whether the claim found the key taken (recorded or guarded by a tombstone) after reading it
   * under its lock, before this transaction wrote anything: it was given no transaction id and
   * wrote no WAL, and it is rolled back. Such a transaction is not a write transaction.
   */
  boolean decidedWithoutWriting;

  /**
   * On PostgreSQL, the completed record of the operation this transaction claimed, not sent yet: it
   * goes to the server in one round trip with the {@code COMMIT} ({@link #commit}), or before any
   * other statement of this transaction, whichever comes first.
   */
  private PendingCompletion pending;

  /**
   * On PostgreSQL, history rows this transaction appended and has not sent yet: they go to the
   * server in one round trip with the {@code COMMIT}, or before any other statement of this
   * transaction. An effect outside the database is claimed in one transaction and recorded in
   * another, each with a history row; holding the row back saves a round trip in each.
   */
  private final List<PendingHistory> history = new ArrayList<>(2);

  /**
   * A leased claim that this transaction found committed by an earlier attempt of the same work
   * (its answer lost): the claim's history row committed with it and is not appended twice.
   */
  private OperationId claimFoundCommitted;

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

  /**
   * The key's record and its tombstone in one read, from one snapshot: a sweep deletes the one and
   * inserts the other in one commit, so the read sees either the record or the tombstone, never
   * neither. One row always comes back (both joins are outer): columns 1 to 11 are the record's
   * ({@link OperationRows#COLUMNS}, null when there is none), 12 to 15 the tombstone's. On
   * PostgreSQL one read rather than two saves the driver a statement and a result set per new key
   * (a JFR profile of keyed-create). SQLite's claim does not use it: there the joined read made
   * keyed-create slower (its claim took 17% of the operation's CPU samples instead of 5%, an
   * async-profiler profile; git history of docs/benchmarks.md); it asks {@link #KEY_IS_KNOWN}
   * instead. Bound by {@link #bindKeyRead}.
   */
  private static final String READ_KEY =
      "SELECT "
          + qualified("o", OperationRows.COLUMNS)
          + ", "
          + qualified("t", RetentionRows.TOMBSTONE_COLUMNS)
          + " FROM (SELECT 1) AS k"
          + " LEFT JOIN tl_operations o ON o.tenant = ? AND o.op_key = ?"
          + " LEFT JOIN tl_tombstones t ON t.tenant = ? AND t.op_key = ?";

  /**
   * PostgreSQL's claim, in one round trip (with the driver's {@code BEGIN}): the claim's wait as
   * the lock_timeout, the key's advisory lock, {@link #READ_KEY}, and the database's lock_timeout
   * back for the tool ({@link KeyLocks#bounded}). At READ COMMITTED a statement reads with a
   * snapshot taken when it starts, so the read, which starts once the lock is granted, sees
   * whatever the lock's previous holder committed.
   */
  private static final String LOCK_AND_READ = KeyLocks.bounded(KeyLocks.LOCK + "; " + READ_KEY);

  /** SQLite's claim: 1 when the key has a record or a tombstone, else 0 (see {@link #claim}). */
  private static final String KEY_IS_KNOWN =
      "SELECT EXISTS (SELECT 1 FROM tl_operations WHERE tenant = ? AND op_key = ?)"
          + " OR EXISTS (SELECT 1 FROM tl_tombstones WHERE tenant = ? AND op_key = ?)";

  /** {@code columns} ("a, b") each prefixed with {@code alias} ("x.a, x.b"). */
  private static String qualified(String alias, String columns) {
    return alias + "." + columns.replace(", ", ", " + alias + ".");
  }

  private static final String UNIQUE_VIOLATION = "23505";

  JdbcTransaction(Connection connection, DialectSupport dialect) {
    this.connection = connection;
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
      // written once, complete; the primary key still guards that insert.
      try {
        if (!keyIsKnown(operation)) {
          reserved = operation;
          return new ClaimResult.Claimed(1);
        }
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
    return lockedClaim(operation, maxWait);
  }

  /**
   * SQLite: whether the key has a record or a tombstone, in one statement that returns one column.
   * A key that reaches a claim was read free moments before, outside the write lock, so it is
   * almost always unknown here; only then are its record and tombstone read in full. Reading them
   * in full every time cost the driver each of their fifteen column names through JNI on every
   * read, rows or not, and a second statement (async-profiler; git history of docs/benchmarks.md).
   */
  private boolean keyIsKnown(NewOperation operation) throws SQLException {
    return dialect
        .statements()
        .query(
            connection,
            KEY_IS_KNOWN,
            ps -> bindKeyRead(ps, 1, operation),
            rs -> rs.next() && rs.getInt(1) != 0);
  }

  /**
   * Binds the four parameters (tenant, key, tenant, key) of {@link #READ_KEY} or {@link
   * #KEY_IS_KNOWN} from {@code first} on.
   */
  private static void bindKeyRead(PreparedStatement ps, int first, NewOperation operation)
      throws SQLException {
    ps.setString(first, operation.tenant().value());
    ps.setString(first + 1, operation.key().value());
    ps.setString(first + 2, operation.tenant().value());
    ps.setString(first + 3, operation.key().value());
  }

  /**
   * What {@link #READ_KEY}'s row says of a key about to be claimed: its record, its live tombstone,
   * or null when the key is free.
   */
  private static ClaimResult decide(ResultSet rs, NewOperation operation) throws SQLException {
    if (!rs.next()) {
      throw new SQLException("the claim's read of the key returned no row");
    }
    if (rs.getString(1) != null) {
      return new ClaimResult.Existing(OperationRows.read(rs, operation.tenant(), operation.key()));
    }
    Optional<Tombstone> tombstone =
        RetentionRows.readAt(rs, 12, operation.tenant(), operation.key());
    if (tombstone.isPresent() && tombstone.get().isLiveAt(operation.createdAt())) {
      return new ClaimResult.Expired(tombstone.get());
    }
    return null;
  }

  /**
   * PostgreSQL: waits for the key's advisory lock and reads the key in the same round trip as the
   * transaction's {@code BEGIN} ({@link #LOCK_AND_READ}). A free key is reserved and its record
   * inserted once, complete, with the {@code COMMIT}; a taken key ends this transaction before it
   * wrote anything.
   */
  private ClaimResult lockedClaim(NewOperation operation, Duration maxWait) {
    try {
      ClaimResult decided;
      try (PreparedStatement ps = dialect.statements().prepare(connection, LOCK_AND_READ)) {
        ps.setString(1, KeyLocks.waitOf(maxWait));
        ps.setLong(2, KeyLocks.of(operation.tenant(), operation.key()));
        bindKeyRead(ps, 3, operation);
        ps.execute(); // the wait's set_config
        ps.getMoreResults(); // the lock
        if (!ps.getMoreResults()) {
          throw new SQLException("the claim's read of the key returned no rows");
        }
        try (ResultSet rs = ps.getResultSet()) {
          decided = decide(rs, operation);
        }
      } catch (SQLException e) {
        if (dialect.isClaimWaitExceeded(e)) {
          rollbackOnly = true;
          return new ClaimResult.Contended();
        }
        throw e;
      }
      if (decided != null) {
        decidedWithoutWriting = true;
        rollbackOnly = true;
        return decided;
      }
      reserved = operation;
      return new ClaimResult.Claimed(1);
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @Override
  public ClaimResult claimLeased(NewOperation operation, LeaseClaim lease, Duration maxWait) {
    flushPending();
    return insertClaim(
        operation,
        maxWait,
        lockFirst()
            + "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
            + " created_at, owner, lease_until, fence, parameters, downstream_key)"
            + " SELECT ?, ?, ?, ?, ?, 'IN_PROGRESS', ?, ?, "
            + dialect.nowMillis()
            + " + ?, 1, ?, ? WHERE "
            + RetentionRows.NO_LIVE_TOMBSTONE
            + " ON CONFLICT (tenant, op_key) DO NOTHING"
            + unwaitLast(),
        lease);
  }

  /**
   * On PostgreSQL, the statement that takes the key's advisory lock, to run in the same round trip
   * before an insert of the key's record ({@link KeyLocks}); on SQLite nothing (its write lock is
   * the database's).
   */
  private String lockFirst() {
    return dialect.kind() == SqlDialect.POSTGRESQL
        ? KeyLocks.WAIT + "; " + KeyLocks.LOCK + "; "
        : "";
  }

  /** After a statement that began with {@link #lockFirst()}: the tool's lock_timeout back. */
  private String unwaitLast() {
    return dialect.kind() == SqlDialect.POSTGRESQL ? "; " + KeyLocks.UNWAIT : "";
  }

  /** Runs {@code ps}, whose SQL began with {@link #lockFirst()}: the count of its insert. */
  private int executeLocked(PreparedStatement ps) throws SQLException {
    if (dialect.kind() != SqlDialect.POSTGRESQL) {
      return ps.executeUpdate();
    }
    ps.execute(); // the wait's set_config
    ps.getMoreResults(); // the lock
    ps.getMoreResults(); // the insert
    return ps.getUpdateCount();
  }

  private ClaimResult insertClaim(
      NewOperation operation, Duration maxWait, String sql, LeaseClaim lease) {
    try {
      int inserted;
      try (PreparedStatement ps = dialect.statements().prepare(connection, sql)) {
        int next = 1;
        if (dialect.kind() == SqlDialect.POSTGRESQL) {
          ps.setString(next++, KeyLocks.waitOf(maxWait));
          ps.setLong(next++, KeyLocks.of(operation.tenant(), operation.key()));
        }
        ps.setString(next++, operation.tenant().value());
        ps.setString(next++, operation.key().value());
        ps.setString(next++, operation.intent().tool());
        ps.setString(next++, operation.intent().toolVersion());
        ps.setString(next++, operation.intent().fingerprint().hex());
        ps.setLong(next++, operation.createdAt().toEpochMilli());
        if (lease != null) {
          ps.setString(next++, lease.owner());
          ps.setLong(next++, lease.lease().toMillis());
          ps.setString(next++, lease.parameters());
          ps.setString(next++, lease.downstreamKey());
        }
        ps.setString(next++, operation.tenant().value());
        ps.setString(next++, operation.key().value());
        ps.setLong(next, operation.createdAt().toEpochMilli());
        inserted = executeLocked(ps);
      } catch (SQLException e) {
        if (dialect.isClaimWaitExceeded(e)) {
          rollbackOnly = true;
          return new ClaimResult.Contended();
        }
        throw e;
      }
      if (inserted == 1) {
        return new ClaimResult.Claimed(1);
      }
      if (lease != null && ownClaim(operation, lease)) {
        // This very claim committed in an earlier attempt whose acknowledgement was lost (a
        // connection dropped during COMMIT): it is still ours, untouched.
        claimFoundCommitted = new OperationId(operation.tenant(), operation.key());
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
    if (reserved == null || !reserved.tenant().equals(tenant) || !reserved.key().equals(key)) {
      throw notInProgress(key);
    }
    NewOperation operation = reserved;
    reserved = null;
    if (dialect.kind() == SqlDialect.POSTGRESQL) {
      // Sent with the commit: one round trip less for every new operation.
      flushPending();
      pending = new PendingCompletion(operation, response, completedAt, expiresAt);
      return;
    }
    insertCompleted(operation, response, completedAt, expiresAt);
  }

  private static StoreException notInProgress(OperationKey key) {
    return new StoreException(
        "operation " + key + " was not claimed by this transaction when its outcome was recorded");
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
    return new JdbcLedgerStore.WrappedSqlException(e);
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
   * Commits this transaction: with a held-back completed record, in the same round trip as it (see
   * {@link #INSERT_COMPLETED_AND_COMMIT}); otherwise with the dialect's plain commit.
   */
  void commit() throws SQLException {
    try {
      commitOnce();
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

  private void commitOnce() throws SQLException {
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

  private void insertCompleted(
      NewOperation operation, StoredResponse response, Instant completedAt, Instant expiresAt) {
    boolean inserted =
        update(
            "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
                + " response_status, response_body, created_at, completed_at, expires_at)"
                + " VALUES (?, ?, ?, ?, ?, 'COMPLETED', ?, ?, ?, ?, ?)"
                + " ON CONFLICT (tenant, op_key) DO NOTHING",
            ps -> bindCompleted(ps, operation, response, completedAt, expiresAt));
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
    if (claimFoundCommitted != null
        && claimFoundCommitted.equals(new OperationId(tenant, key))
        && entry.from().isEmpty()
        && entry.to() == OperationState.IN_PROGRESS) {
      // The claim's own history row committed with it, in the attempt whose answer was lost.
      claimFoundCommitted = null;
      return;
    }
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

  private void lockKey(TenantId tenant, OperationKey key) {
    flushPending();
    try (PreparedStatement ps = dialect.statements().prepare(connection, KeyLocks.LOCK)) {
      ps.setLong(1, KeyLocks.of(tenant, key));
      ps.execute();
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  private boolean update(String sql, Binder binder) {
    flushPending();
    try {
      return dialect.statements().update(connection, sql, binder::bind) == 1;
    } catch (SQLException e) {
      throw new JdbcLedgerStore.WrappedSqlException(e);
    }
  }

  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }
}
