package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.TransientStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * How a {@link JdbcTransaction} claims a key: what it reads and writes, in as few round trips as
 * the database allows, to learn whether the key is free, recorded or guarded by a tombstone. What
 * the transaction must then do (keep the key reserved, roll back) is the transaction's business;
 * these methods only answer.
 */
final class KeyClaims {
  private KeyClaims() {}

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

  /**
   * SQLite's claim: 1 when the key has a record or a tombstone, else 0 (see {@link #keyIsKnown}).
   */
  private static final String KEY_IS_KNOWN =
      "SELECT EXISTS (SELECT 1 FROM tl_operations WHERE tenant = ? AND op_key = ?)"
          + " OR EXISTS (SELECT 1 FROM tl_tombstones WHERE tenant = ? AND op_key = ?)";

  /** {@code columns} ("a, b") each prefixed with {@code alias} ("x.a, x.b"). */
  private static String qualified(String alias, String columns) {
    return alias + "." + columns.replace(", ", ", " + alias + ".");
  }

  /**
   * SQLite, in a transaction that holds the database's only write lock (BEGIN IMMEDIATE): nobody
   * can insert the key (or sweep it) before the transaction ends, so reading it is a claim.
   *
   * @return {@link ClaimResult.Claimed} when the key is free (the caller reserves it and writes its
   *     record once, complete), else {@link ClaimResult.Existing} or {@link ClaimResult.Expired}
   */
  static ClaimResult underWriteLock(
      Connection connection, DialectSupport dialect, NewOperation operation) throws SQLException {
    if (!keyIsKnown(connection, dialect, operation)) {
      return new ClaimResult.Claimed(1);
    }
    Optional<OperationRecord> existing =
        OperationRows.select(connection, dialect.statements(), operation.tenant(), operation.key());
    if (existing.isPresent()) {
      return new ClaimResult.Existing(existing.get());
    }
    Optional<Tombstone> tombstone =
        RetentionRows.select(connection, dialect.statements(), operation.tenant(), operation.key());
    if (tombstone.isPresent() && tombstone.get().isLiveAt(operation.createdAt())) {
      return new ClaimResult.Expired(tombstone.get());
    }
    return new ClaimResult.Claimed(1);
  }

  /**
   * SQLite: whether the key has a record or a tombstone, in one statement that returns one column.
   * A key that reaches a claim was read free moments before, outside the write lock, so it is
   * almost always unknown here; only then are its record and tombstone read in full. Reading them
   * in full every time cost the driver each of their fifteen column names through JNI on every
   * read, rows or not, and a second statement (async-profiler; git history of docs/benchmarks.md).
   */
  private static boolean keyIsKnown(
      Connection connection, DialectSupport dialect, NewOperation operation) throws SQLException {
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
   * transaction's {@code BEGIN} ({@link #LOCK_AND_READ}).
   *
   * @return {@link ClaimResult.Claimed} for a free key, which the caller reserves (its record is
   *     inserted once, complete, with the {@code COMMIT}); {@link ClaimResult.Existing} or {@link
   *     ClaimResult.Expired} for a taken key, and {@link ClaimResult.Contended} when the lock was
   *     not granted within {@code maxWait}: either way the transaction wrote nothing and must be
   *     rolled back
   */
  static ClaimResult underKeyLock(
      Connection connection, DialectSupport dialect, NewOperation operation, Duration maxWait)
      throws SQLException {
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
        return new ClaimResult.Contended();
      }
      throw e;
    }
    if (decided != null) {
      return decided;
    }
    return new ClaimResult.Claimed(1);
  }

  /**
   * Claims a key for an effect outside the database: inserts its {@code IN_PROGRESS} record with
   * {@code lease}'s owner, lease and parameters, unless the key has a record or a live tombstone
   * (on PostgreSQL under the key's advisory lock, in the same round trip).
   *
   * @return {@link ClaimResult.Contended} when the key's lock was not granted within {@code
   *     maxWait}; the transaction must then be rolled back
   * @throws TransientStoreException when the record the claim met was swept meanwhile: the key is
   *     free, and claiming it again from the start takes it
   */
  static ClaimResult leased(
      Connection connection,
      DialectSupport dialect,
      NewOperation operation,
      LeaseClaim lease,
      Duration maxWait,
      Runnable foundCommitted)
      throws SQLException {
    String sql =
        lockFirst(dialect)
            + "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint, state,"
            + " created_at, owner, lease_until, fence, parameters, downstream_key)"
            + " SELECT ?, ?, ?, ?, ?, 'IN_PROGRESS', ?, ?, "
            + dialect.nowMillis()
            + " + ?, 1, ?, ? WHERE "
            + RetentionRows.NO_LIVE_TOMBSTONE
            + " ON CONFLICT (tenant, op_key) DO NOTHING"
            + unwaitLast(dialect);
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
      ps.setString(next++, lease.owner());
      ps.setLong(next++, lease.lease().toMillis());
      ps.setString(next++, lease.parameters());
      ps.setString(next++, lease.downstreamKey());
      ps.setString(next++, operation.tenant().value());
      ps.setString(next++, operation.key().value());
      ps.setLong(next, operation.createdAt().toEpochMilli());
      inserted = executeLocked(dialect, ps);
    } catch (SQLException e) {
      if (dialect.isClaimWaitExceeded(e)) {
        return new ClaimResult.Contended();
      }
      throw e;
    }
    if (inserted == 1) {
      return new ClaimResult.Claimed(1);
    }
    if (ownClaim(connection, dialect, operation, lease)) {
      // This very claim committed in an earlier attempt whose acknowledgement was lost (a
      // connection dropped during COMMIT): it is still ours, untouched.
      foundCommitted.run();
      return new ClaimResult.Claimed(1);
    }
    // Nothing inserted: the key has a record, or a live tombstone. Each statement at READ
    // COMMITTED reads what was committed before it started, so this sees the record the claim
    // conflicted with (or the tombstone of a sweep that removed it meanwhile).
    Optional<OperationRecord> existing =
        OperationRows.select(connection, dialect.statements(), operation.tenant(), operation.key());
    if (existing.isPresent()) {
      return new ClaimResult.Existing(existing.get());
    }
    Optional<Tombstone> tombstone =
        RetentionRows.select(connection, dialect.statements(), operation.tenant(), operation.key());
    if (tombstone.isPresent() && tombstone.get().isLiveAt(operation.createdAt())) {
      return new ClaimResult.Expired(tombstone.get());
    }
    // The record the claim met was swept (its tombstone window is over) in between: the key is
    // free; claim it again from the start.
    throw new TransientStoreException(
        "the key's record was swept while it was being claimed", null);
  }

  /**
   * On PostgreSQL, the statement that takes the key's advisory lock, to run in the same round trip
   * before an insert of the key's record ({@link KeyLocks}); on SQLite nothing (its write lock is
   * the database's).
   */
  private static String lockFirst(DialectSupport dialect) {
    return dialect.kind() == SqlDialect.POSTGRESQL
        ? KeyLocks.WAIT + "; " + KeyLocks.LOCK + "; "
        : "";
  }

  /** After a statement that began with {@link #lockFirst}: the tool's lock_timeout back. */
  private static String unwaitLast(DialectSupport dialect) {
    return dialect.kind() == SqlDialect.POSTGRESQL ? "; " + KeyLocks.UNWAIT : "";
  }

  /** Runs {@code ps}, whose SQL began with {@link #lockFirst}: the count of its insert. */
  private static int executeLocked(DialectSupport dialect, PreparedStatement ps)
      throws SQLException {
    if (dialect.kind() != SqlDialect.POSTGRESQL) {
      return ps.executeUpdate();
    }
    ps.execute(); // the wait's set_config
    ps.getMoreResults(); // the lock
    ps.getMoreResults(); // the insert
    return ps.getUpdateCount();
  }

  /** Whether the key's row is this claim itself: same owner token, first fence, in progress. */
  private static boolean ownClaim(
      Connection connection, DialectSupport dialect, NewOperation operation, LeaseClaim lease)
      throws SQLException {
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
}
