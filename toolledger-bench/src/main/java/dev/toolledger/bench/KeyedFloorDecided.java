package dev.toolledger.bench;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code keyed-floor-decided} ({@link FloorScenarios#keyedFloorDecided}) runs and holds:
 * {@code keyed-floor} plus what a design must do to decide, before the tool runs, whether a key is
 * new, under the issue's own rule that a replay opens no write transaction; as plain JDBC, with no
 * engine, no validation and no fingerprint. It writes what {@code keyed-floor} writes, and first
 * reads the key as the ledger's claim does, with the ledger's statements:
 *
 * <ul>
 *   <li><b>SQLite</b>: the key's row read in auto-commit on a read connection of the thread's own
 *       (prepared once, as the store's read connections keep theirs) before the write transaction
 *       (a replay must not take the database's only write lock), then, under that lock, whether the
 *       key has a row or a tombstone, in one statement of one column (what was read before the lock
 *       decides nothing). The driver is told of each transaction, and that the read connections
 *       only read, as the store tells it ({@code SqliteDriverState}).
 *   <li><b>PostgreSQL</b>: in the transaction's first round trip, with the driver's {@code BEGIN},
 *       the key's transaction-scoped advisory lock and one read of its row and tombstone; the row
 *       is then inserted with the {@code COMMIT}, in one round trip, as the ledger's record is.
 *       Three round trips, as {@code keyed-floor}'s.
 * </ul>
 *
 * <p>{@code keyed-create / keyed-floor-decided} is then what the engine's Java adds to those
 * statements, and {@code keyed-floor-decided / keyed-floor} what deciding first costs any design
 * that keeps a replay out of write transactions and never runs a tool for a recorded key.
 */
final class KeyedFloorDecided implements AutoCloseable {
  /** The ledger's record columns and tombstone columns, as its claim reads them. */
  private static final String ROW_COLUMNS =
      "tenant, op_key, tool, tool_version, fingerprint, state, response_status, response_body,"
          + " created_at, completed_at, expires_at";

  private static final String TOMBSTONE_COLUMNS = "tool, fingerprint, expired_at, tombstone_until";

  private static final String ROW =
      "SELECT " + ROW_COLUMNS + " FROM bench_floor WHERE tenant = ? AND op_key = ?";

  /** SQLite, under the lock: whether the key has a row or a tombstone, as the ledger asks. */
  private static final String KEY_IS_KNOWN =
      "SELECT EXISTS (SELECT 1 FROM bench_floor WHERE tenant = ? AND op_key = ?)"
          + " OR EXISTS (SELECT 1 FROM bench_floor_tombstones WHERE tenant = ? AND op_key = ?)";

  /** PostgreSQL: the row and the tombstone in one read, as the ledger's claim reads them. */
  private static final String READ_KEY =
      "SELECT "
          + qualified("o", ROW_COLUMNS)
          + ", "
          + qualified("t", TOMBSTONE_COLUMNS)
          + " FROM (SELECT 1) AS k"
          + " LEFT JOIN bench_floor o ON o.tenant = ? AND o.op_key = ?"
          + " LEFT JOIN bench_floor_tombstones t ON t.tenant = ? AND t.op_key = ?";

  private static final String LOCK_AND_READ = "SELECT pg_advisory_xact_lock(?); " + READ_KEY;

  /** {@code columns} ("a, b") each prefixed with {@code alias} ("x.a, x.b"). */
  private static String qualified(String alias, String columns) {
    return alias + "." + columns.replace(", ", ", " + alias + ".");
  }

  private final Target target;
  private final AtomicLong keys;
  private final PlainTransactions plain;

  /** SQLite: each harness thread's read connection and its prepared read (see the class). */
  private final PerThread<PreparedStatement> reads = new PerThread<>(thread -> openRead());

  /** SQLite: the one writer's turn, its connection and its statements (see writeOnSqlite). */
  private final java.util.concurrent.Semaphore writer = new java.util.concurrent.Semaphore(1, true);

  private java.sql.Connection write;
  private final Map<String, PreparedStatement> writeStatements = new java.util.HashMap<>();

  KeyedFloorDecided(Target target, AtomicLong keys) {
    this.target = target;
    this.keys = keys;
    this.plain = new PlainTransactions(target);
  }

  /** The operation {@link FloorScenarios#keyedFloorDecided} times. */
  void run(int thread, long sequence) throws Exception {
    String key = Scenarios.newKey(target, keys);
    if (target.sqliteUrl.isPresent()) {
      PreparedStatement read = reads.get(thread);
      if (readsARow(read, key)) {
        throw new IllegalStateException("a new key was found: " + key);
      }
      writeOnSqlite(key);
      return;
    }
    plain.run(
        connection -> {
          try (PreparedStatement ps = connection.prepareStatement(LOCK_AND_READ)) {
            // Any stable 64-bit number of the key will do for a floor; the ledger's is SHA-256's.
            ps.setLong(1, ((long) Target.TENANT.value().hashCode() << 32) ^ key.hashCode());
            bindKeyRead(ps, 2, key);
            ps.execute();
            if (!ps.getMoreResults()) {
              throw new IllegalStateException("the lock's read returned no rows");
            }
            try (ResultSet rs = ps.getResultSet()) {
              if (keyIsTaken(rs)) {
                throw new IllegalStateException("a new key was found: " + key);
              }
            }
          }
          long now = System.currentTimeMillis();
          long id = FloorScenarios.insertNote(connection, now);
          try (PreparedStatement ps =
              connection.prepareStatement(FloorScenarios.INSERT_ROW + "; COMMIT")) {
            FloorScenarios.bindRow(ps, key, id, now);
            ps.execute();
          }
          // The server ended the transaction; the driver's commit() that follows is a no-op.
          return null;
        });
  }

  /**
   * SQLite's write: one writer at a time on a connection this scenario holds, its statements
   * prepared once, as the store's writer keeps its own ({@code BEGIN IMMEDIATE}, the reads under
   * the lock, the note's and the row's inserts, {@code COMMIT}). The note's insert is kept too: on
   * SQLite the tool's {@code prepareStatement} is served from the store's statement cache.
   */
  private void writeOnSqlite(String key) throws Exception {
    writer.acquire();
    try {
      if (write == null) {
        write = target.store.dataSource().getConnection();
      }
      // As the ledger's store does: the driver is told of the transaction as it begins, so it
      // does not step a BEGIN of its own after each statement (SqliteDriverState).
      org.sqlite.SQLiteConnectionConfig config =
          write.unwrap(org.sqlite.SQLiteConnection.class).getConnectionConfig();
      config.setAutoCommit(false);
      try {
        kept("BEGIN IMMEDIATE").execute();
      } catch (Exception e) {
        config.setAutoCommit(true);
        throw e;
      }
      try {
        if (keyIsKnown(kept(KEY_IS_KNOWN), key)) {
          throw new IllegalStateException("a new key was found: " + key);
        }
        long now = System.currentTimeMillis();
        long id = FloorScenarios.insertNote(kept(FloorScenarios.INSERT_NOTE), now);
        PreparedStatement insert = kept(FloorScenarios.INSERT_ROW);
        FloorScenarios.bindRow(insert, key, id, now);
        // As the ledger runs its own inserts: without the driver's SELECT last_insert_rowid()
        // after each one, which only getGeneratedKeys() would read.
        boolean wanted = config.isGetGeneratedKeys();
        config.setGetGeneratedKeys(false);
        try {
          insert.executeUpdate();
        } finally {
          config.setGetGeneratedKeys(wanted);
        }
      } catch (Exception e) {
        kept("ROLLBACK").execute();
        config.setAutoCommit(true);
        throw e;
      }
      kept("COMMIT").execute();
      config.setAutoCommit(true);
    } finally {
      writer.release();
    }
  }

  /** Under the lock, as the ledger's SQLite claim reads a key: one statement, one column. */
  private static boolean keyIsKnown(PreparedStatement read, String key) throws Exception {
    bindKeyRead(read, 1, key);
    try (ResultSet rs = read.executeQuery()) {
      return rs.next() && rs.getInt(1) != 0;
    }
  }

  private PreparedStatement kept(String sql) throws java.sql.SQLException {
    PreparedStatement statement = writeStatements.get(sql);
    if (statement == null) {
      statement = write.prepareStatement(sql);
      writeStatements.put(sql, statement);
    }
    return statement;
  }

  private static void bindKeyRead(PreparedStatement ps, int first, String key)
      throws java.sql.SQLException {
    ps.setString(first, Target.TENANT.value());
    ps.setString(first + 1, key);
    ps.setString(first + 2, Target.TENANT.value());
    ps.setString(first + 3, key);
  }

  /** Column 1 is the row's tenant, 14 the tombstone's expired_at: never null in a row. */
  private static boolean keyIsTaken(ResultSet rs) throws java.sql.SQLException {
    if (!rs.next()) {
      throw new IllegalStateException("the key's read returned no row");
    }
    return rs.getString(1) != null || rs.getObject(14) != null;
  }

  private static boolean readsARow(PreparedStatement read, String key) throws Exception {
    read.setString(1, Target.TENANT.value());
    read.setString(2, key);
    try (ResultSet rs = read.executeQuery()) {
      return rs.next();
    }
  }

  private PreparedStatement openRead() {
    try {
      java.sql.Connection connection =
          java.sql.DriverManager.getConnection(target.sqliteUrl.orElseThrow());
      // As the store's read connections: told that they only read (SqliteDriverState).
      connection
          .unwrap(org.sqlite.SQLiteConnection.class)
          .getConnectionConfig()
          .setAutoCommit(false);
      return connection.prepareStatement(ROW);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("cannot open a read connection: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws Exception {
    reads.closeAll(
        (thread, read) -> {
          java.sql.Connection connection = read.getConnection();
          read.close();
          connection.close();
        });
    for (PreparedStatement statement : writeStatements.values()) {
      statement.close();
    }
    writeStatements.clear();
    if (write != null) {
      write.close();
      write = null;
    }
  }
}
