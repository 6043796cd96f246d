package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.store.TransientStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Runs a {@link JdbcLedgerStore}'s write transactions: the writer's turn (SQLite's one writer at a
 * time), {@code BEGIN}, the work, then commit or rollback, a connection whose state is in doubt
 * never handed to another caller, and each failure translated ({@link StorageFaults}). On SQLite
 * with group commit, work that queues up shares transactions ({@link GroupCommit}).
 */
final class WriteTransactions {
  private final DataSource dataSource;
  private final DialectSupport dialect;
  private final StoreConnections connections;
  private final StorageFaults faults;
  private final SqliteFileWatch fileWatch;

  /** Null when every piece of work runs in a transaction of its own. */
  private final GroupCommit groupCommit;

  private final AtomicLong writeTransactions = new AtomicLong();
  private final AtomicLong decidedInTransaction = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private volatile long lastCommitNanos = System.nanoTime();

  /**
   * @param groupCommit whether to share transactions between queued writers; only honoured on a
   *     database with one writer at a time
   */
  WriteTransactions(
      StoreConnections connections,
      StorageFaults faults,
      SqliteFileWatch fileWatch,
      boolean groupCommit) {
    this.dataSource = connections.dataSource();
    this.dialect = connections.dialect();
    this.connections = connections;
    this.faults = faults;
    this.fileWatch = fileWatch;
    this.groupCommit =
        groupCommit && dialect.serializesWriters()
            ? new GroupCommit(this, connections, faults)
            : null;
  }

  /** See {@link JdbcLedgerStore#inTransaction}. */
  <T> T inTransaction(TransactionWork<T> work) {
    fileWatch.check();
    try {
      return once(work);
    } catch (StoreUnavailableException e) {
      SQLException fault = dialect.storageFault(e);
      if (fault == null || !dialect.isStaleConnection(fault)) {
        throw e;
      }
      // The connection was stale, not necessarily the storage: SQLite keeps a connection that it
      // opened read-only while the file was unwritable read-only for good, and one bound to a file
      // that moved. Those were just thrown away; one attempt on a fresh connection tells them
      // from storage that still fails. The failed attempt was rolled back, so running the work
      // again is what a retry would do.
      return once(work);
    }
  }

  private <T> T once(TransactionWork<T> work) {
    if (groupCommit != null) {
      return groupCommit.run(work);
    }
    boolean entered;
    try {
      entered = dialect.enterWrite();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while waiting for the write lock", e);
    }
    if (!entered) {
      throw new TransientStoreException(
          "another writer held the database past the busy timeout", null);
    }
    try {
      return alone(work);
    } catch (Throwable failure) {
      throw faults.translateWork(failure);
    } finally {
      dialect.exitWrite();
    }
  }

  /** One transaction for one piece of work; the caller holds the writer's turn if there is one. */
  <T> T alone(TransactionWork<T> work) throws Throwable {
    writeTransactions.incrementAndGet();
    try (Connection connection = dataSource.getConnection()) {
      try {
        dialect.begin(connection);
      } catch (SQLException | RuntimeException e) {
        // A connection whose transaction could not begin is in a state we cannot vouch for (the
        // xerial driver, for one, believes it is in a transaction after a busy BEGIN through
        // setAutoCommit). Never hand it to another caller.
        connections.discard(connection, e);
        throw e;
      }
      JdbcTransaction transaction = new JdbcTransaction(connection, dialect);
      try {
        T result = work.run(transaction);
        if (transaction.decidedWithoutWriting) {
          // Its claim read the key's record under the key's lock and wrote nothing: no
          // transaction id, no WAL (test PostgresLockedClaimTest). A replay, not a write.
          writeTransactions.decrementAndGet();
          decidedInTransaction.incrementAndGet();
        }
        if (transaction.rollbackOnly) {
          // A claim that ran out of wait aborted the transaction on PostgreSQL; it wrote nothing,
          // and a COMMIT would be turned into a rollback anyway. Say what happens.
          if (!dialect.rollback(connection)) {
            connections.discard(connection, new IllegalStateException("rollback failed"));
          }
        } else {
          transaction.commit();
          committed();
        }
        return result;
      } catch (Throwable failure) {
        if (!dialect.rollback(connection)) {
          // The transaction's state is unknown: never hand this connection to another caller.
          connections.discard(connection, failure);
        }
        throw faults.unavailableIfFaulted(transaction, failure);
      }
    }
  }

  /**
   * Counts {@code n} write transactions that share one database transaction ({@link GroupCommit}).
   */
  void begun(int n) {
    writeTransactions.addAndGet(n);
  }

  /** Counts a commit that went through. */
  void committed() {
    commits.incrementAndGet();
    lastCommitNanos = System.nanoTime();
  }

  /** See {@link JdbcLedgerStore#writeTransactions()}. */
  long writeTransactions() {
    return writeTransactions.get();
  }

  /** See {@link JdbcLedgerStore#decidedInTransaction()}. */
  long decidedInTransaction() {
    return decidedInTransaction.get();
  }

  /** See {@link JdbcLedgerStore#commits()}. */
  long commits() {
    return commits.get();
  }

  /** {@link System#nanoTime()} of the last commit that went through (or of the store's start). */
  long lastCommitNanos() {
    return lastCommitNanos;
  }

  /** Writers waiting for a commit group; 0 without group commit. */
  int queuedWriters() {
    return groupCommit == null ? 0 : groupCommit.queued();
  }
}
