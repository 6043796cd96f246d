package dev.toolledger.jdbc;

import dev.toolledger.core.store.SqlDialect;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * SQLite has one writer at a time. Writers of this process queue on a fair in-process gate
 * instead of on SQLite's busy handler, whose sleep-and-poll loop wastes most of its waiting time;
 * the busy timeout still covers writers in other processes (a CLI command, a backup).
 */
final class SqliteSupport extends DialectSupport {
  private static final int SQLITE_BUSY = 5;
  private static final int SQLITE_LOCKED = 6;

  private final Semaphore writer = new Semaphore(1, true);
  private final long busyTimeoutMillis;

  SqliteSupport(Duration busyTimeout) {
    this.busyTimeoutMillis = busyTimeout.toMillis();
  }

  @Override
  SqlDialect kind() {
    return SqlDialect.SQLITE;
  }

  @Override
  boolean enterWrite() throws InterruptedException {
    return writer.tryAcquire(busyTimeoutMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  void exitWrite() {
    writer.release();
  }

  @Override
  boolean isTransient(SQLException e) {
    // Extended result codes keep the primary code in the low byte (SQLITE_BUSY_SNAPSHOT is 517).
    int primary = e.getErrorCode() & 0xFF;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED || super.isTransient(e);
  }
}
