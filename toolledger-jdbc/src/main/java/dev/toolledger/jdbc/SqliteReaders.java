package dev.toolledger.jdbc;

import dev.toolledger.jdbc.internal.Statements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The read connections of a SQLite ledger's single-record reads (lookups, replays, tombstones): a
 * small set of connections, each with its own prepared statements, taken and given back with one
 * compare-and-set each. They replace the pool checkout on that path, which for an embedded file
 * database checked out a proxy, recorded the wait in a histogram and reset the connection's state
 * on its way back, on every call: about a sixth of a lookup's CPU (JFR; git history of
 * docs/benchmarks.md).
 *
 * <p>What a pooled connection guaranteed still holds:
 *
 * <ul>
 *   <li>They are opened from the store's own data source, with the same settings as the pool's
 *       connections (WAL, busy timeout, foreign keys, never creating the file).
 *   <li>A read sees every write committed before it started: the file is in WAL mode, the
 *       connection stays in auto-commit, and each query's result set is closed (which resets the
 *       statement) before the connection is given back, so no connection keeps an old snapshot. The
 *       driver is told that the connection only reads ({@link SqliteDriverState#readsOnly}): that
 *       spares each read that finds no row a {@code BEGIN} and a {@code COMMIT} of the driver's
 *       with nothing to commit. It is told otherwise again before the connection closes.
 *   <li>A connection whose read threw anything is closed, never given back: a driver may leave a
 *       statement or connection unusable after an I/O error.
 *   <li>{@link #evict()} (a storage fault, a replaced file) closes the idle connections at once and
 *       those in use when they come back; {@link #close()} does the same for good.
 *   <li>At most {@code max} exist; a caller that finds none free waits up to {@code timeout}, as
 *       for a pooled connection, then fails with a transient error.
 * </ul>
 */
final class SqliteReaders implements AutoCloseable {
  /** One read connection and its statements; used by one thread at a time. */
  static final class ReadConnection implements Statements {
    private final Connection connection;
    private final int generation;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    ReadConnection(Connection connection, int generation) {
      this.connection = connection;
      this.generation = generation;
    }

    Connection connection() {
      return connection;
    }

    /** A fresh statement; only {@link #query} keeps one, on this connection. */
    @Override
    public PreparedStatement prepare(Connection connection, String sql) throws SQLException {
      return connection.prepareStatement(sql);
    }

    @Override
    public <T> T query(Connection connection, String sql, Binder bind, Reader<T> read)
        throws SQLException {
      PreparedStatement statement = statements.get(sql);
      if (statement == null) {
        statement = this.connection.prepareStatement(sql);
        statements.put(sql, statement);
      }
      // A statement that threw is not cleaned up here: the whole connection is closed (see
      // SqliteReaders#read).
      bind.bind(statement);
      T result;
      try (ResultSet rows = statement.executeQuery()) {
        result = read.read(rows);
      }
      statement.clearParameters();
      return result;
    }

    void close() {
      for (PreparedStatement statement : statements.values()) {
        try {
          statement.close();
        } catch (SQLException e) {
          // The connection is closed next, which releases its statements anyway.
        }
      }
      statements.clear();
      SqliteDriverState.restoredQuietly(connection);
      try {
        connection.close();
      } catch (SQLException e) {
        // Nothing is left to release.
      }
    }
  }

  /** Work on one read connection, with its statements. */
  @FunctionalInterface
  interface Read<T> {
    T run(Connection connection, Statements statements) throws SQLException;
  }

  private final DataSource dataSource;
  private final AtomicReferenceArray<ReadConnection> idle;
  private final AtomicInteger open = new AtomicInteger();
  private final long timeoutNanos;
  private final AtomicInteger generation = new AtomicInteger();
  private volatile boolean closed;

  SqliteReaders(DataSource dataSource, int max, Duration timeout) {
    if (max < 1) {
      throw new IllegalArgumentException("at least one read connection");
    }
    this.dataSource = dataSource;
    this.idle = new AtomicReferenceArray<>(max);
    this.timeoutNanos = timeout.toNanos();
  }

  /**
   * Runs {@code work} on a read connection. The connection goes back for the next caller when the
   * work returns, and is closed when it throws.
   */
  <T> T read(Read<T> work) throws SQLException {
    ReadConnection reader = take();
    T result;
    try {
      result = work.run(reader.connection, reader);
    } catch (SQLException | RuntimeException | Error e) {
      discard(reader);
      throw e;
    }
    give(reader);
    return result;
  }

  /** Connections open now, idle or in use. */
  int open() {
    return open.get();
  }

  /** Closes the idle connections now and those in use when they come back. */
  void evict() {
    generation.incrementAndGet();
    drain();
  }

  @Override
  public void close() {
    closed = true;
    drain();
  }

  private ReadConnection take() throws SQLException {
    int slots = idle.length();
    int start = (int) (Thread.currentThread().getId() % slots);
    long deadline = 0;
    while (true) {
      if (closed) {
        throw new SQLException("the ledger store is closed");
      }
      for (int i = 0; i < slots; i++) {
        int slot = (start + i) % slots;
        ReadConnection reader = idle.get(slot);
        if (reader != null && idle.compareAndSet(slot, reader, null)) {
          if (reader.generation == generation.get()) {
            return reader;
          }
          discard(reader);
        }
      }
      int now = open.get();
      if (now < slots && open.compareAndSet(now, now + 1)) {
        return opened();
      }
      if (deadline == 0) {
        deadline = System.nanoTime() + timeoutNanos;
      } else if (System.nanoTime() - deadline > 0) {
        throw new SQLTransientConnectionException(
            "no read connection of the ledger came free within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                + " ms");
      }
      LockSupport.parkNanos(50_000);
    }
  }

  private ReadConnection opened() throws SQLException {
    int current = generation.get();
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException | RuntimeException | Error e) {
      open.decrementAndGet();
      throw e;
    }
    ReadConnection reader = new ReadConnection(connection, current);
    try {
      // Spares each read that finds no row the driver's BEGIN and COMMIT after it (see the class).
      SqliteDriverState.readsOnly(connection);
    } catch (SQLException | RuntimeException | Error e) {
      discard(reader);
      throw e;
    }
    return reader;
  }

  private void give(ReadConnection reader) {
    if (closed || reader.generation != generation.get()) {
      discard(reader);
      return;
    }
    int slots = idle.length();
    int start = (int) (Thread.currentThread().getId() % slots);
    for (int i = 0; i < slots; i++) {
      int slot = (start + i) % slots;
      if (idle.compareAndSet(slot, null, reader)) {
        // close() or evict() may have drained the slots between the check above and here.
        if (closed || reader.generation != generation.get()) {
          drain();
        }
        return;
      }
    }
    // Unreachable while at most `slots` readers exist; closing one keeps the count right anyway.
    discard(reader);
  }

  private void drain() {
    for (int slot = 0; slot < idle.length(); slot++) {
      ReadConnection reader = idle.getAndSet(slot, null);
      if (reader != null) {
        discard(reader);
      }
    }
  }

  private void discard(ReadConnection reader) {
    reader.close();
    open.decrementAndGet();
  }
}
