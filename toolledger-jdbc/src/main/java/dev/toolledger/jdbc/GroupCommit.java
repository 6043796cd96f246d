package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.store.TransientStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * Group commit: on a database with one writer at a time, work that queues up while a transaction is
 * being committed shares the next transaction, each piece inside its own savepoint, so that one
 * durable commit (one fsync under {@code synchronous=FULL}) serves all of them. Each piece's result
 * is handed back only after the transaction that holds it committed; a piece that throws is rolled
 * back to its savepoint alone. A lone piece of work runs in a transaction of its own, exactly as
 * without grouping ({@link WriteTransactions#alone}).
 */
final class GroupCommit {
  private static final int MAX_GROUP = 256;

  private final WriteTransactions writes;
  private final DataSource dataSource;
  private final DialectSupport dialect;
  private final StoreConnections connections;
  private final StorageFaults faults;
  private final Queue<Pending<?>> queue = new ConcurrentLinkedQueue<>();

  GroupCommit(WriteTransactions writes, StoreConnections connections, StorageFaults faults) {
    this.writes = writes;
    this.dataSource = connections.dataSource();
    this.dialect = connections.dialect();
    this.connections = connections;
    this.faults = faults;
  }

  /** Work waiting for a commit group, and what became of it. */
  private static final class Pending<T> {
    final TransactionWork<T> work;
    final CountDownLatch done = new CountDownLatch(1);
    T result;
    Throwable failure;

    Pending(TransactionWork<T> work) {
      this.work = work;
    }

    void succeed(T value) {
      result = value;
      done.countDown();
    }

    void fail(Throwable cause) {
      failure = cause;
      done.countDown();
    }
  }

  /** Writers waiting for a commit group (for tests). */
  int queued() {
    return queue.size();
  }

  /**
   * Runs {@code work} in the next commit group: the caller that gets the writer's turn leads,
   * running groups until its own work is done; the others wait for the leader's commit.
   */
  <T> T run(TransactionWork<T> work) {
    Pending<T> mine = new Pending<>(work);
    queue.add(mine);
    boolean entered;
    try {
      entered = dialect.enterWrite();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (queue.remove(mine)) {
        throw new StoreException("interrupted while waiting for the write lock", e);
      }
      entered = false;
    }
    if (entered) {
      try {
        while (mine.done.getCount() > 0) {
          List<Pending<?>> batch = new ArrayList<>();
          Pending<?> next;
          while (batch.size() < MAX_GROUP && (next = queue.poll()) != null) {
            batch.add(next);
          }
          if (batch.isEmpty()) {
            break;
          }
          runGroup(batch);
        }
      } finally {
        dialect.exitWrite();
      }
    } else if (queue.remove(mine)) {
      throw new TransientStoreException(
          "another writer held the database past the busy timeout", null);
    }
    // Taken by a leader: its group is running or done; wait for it (it ends within one commit).
    boolean interrupted = false;
    while (true) {
      try {
        mine.done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (mine.failure != null) {
      throw faults.translateWork(mine.failure);
    }
    return mine.result;
  }

  private void runGroup(List<Pending<?>> group) {
    if (group.size() == 1) {
      runAlone(group.get(0));
      return;
    }
    writes.begun(group.size());
    List<Pending<?>> kept = new ArrayList<>();
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      group.forEach(p -> p.fail(e));
      return;
    }
    try (connection) {
      try {
        dialect.begin(connection);
      } catch (SQLException | RuntimeException e) {
        connections.discard(connection, e);
        group.forEach(p -> p.fail(e));
        return;
      }
      List<Object> results = new ArrayList<>();
      for (Pending<?> pending : group) {
        JdbcTransaction transaction = null;
        try {
          savepoint(connection, "SAVEPOINT tl_group_item");
          transaction = new JdbcTransaction(connection, dialect);
          Object result = pending.work.run(transaction);
          savepoint(connection, "RELEASE tl_group_item");
          kept.add(pending);
          results.add(result);
        } catch (Throwable failure) {
          pending.fail(
              transaction == null ? failure : faults.unavailableIfFaulted(transaction, failure));
          try {
            savepoint(connection, "ROLLBACK TO tl_group_item");
            savepoint(connection, "RELEASE tl_group_item");
          } catch (SQLException | RuntimeException broken) {
            // SQLite rolls a whole transaction back after some errors (I/O, full disk); then the
            // savepoint is gone and nothing of the group can be trusted to commit.
            abandon(
                connection, broken, kept, group.subList(group.indexOf(pending) + 1, group.size()));
            return;
          }
        }
      }
      try {
        dialect.commit(connection);
        writes.committed();
      } catch (SQLException | RuntimeException e) {
        abandon(connection, e, kept, List.of());
        return;
      }
      for (int i = 0; i < kept.size(); i++) {
        succeed(kept.get(i), results.get(i));
      }
    } catch (SQLException e) {
      // Closing the connection failed after the group was settled; nothing to hand back.
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void succeed(Pending<T> pending, Object result) {
    pending.succeed((T) result);
  }

  /** Rolls a group back and fails every piece that had not failed on its own yet. */
  private void abandon(
      Connection connection, Throwable cause, List<Pending<?>> kept, List<Pending<?>> untried) {
    if (!dialect.rollback(connection)) {
      connections.discard(connection, cause);
    }
    String why = "the commit group this operation shared was rolled back; nothing of it remains";
    SQLException fault = dialect.storageFault(cause);
    StoreException rolledBack =
        fault != null ? faults.unavailable(fault, why) : new TransientStoreException(why, cause);
    kept.forEach(p -> p.fail(rolledBack));
    untried.forEach(p -> p.fail(rolledBack));
  }

  private <T> void runAlone(Pending<T> pending) {
    try {
      pending.succeed(writes.alone(pending.work));
    } catch (Throwable failure) {
      pending.fail(failure);
    }
  }

  private void savepoint(Connection connection, String sql) throws SQLException {
    try (PreparedStatement ps = dialect.statements().prepare(connection, sql)) {
      ps.execute();
    }
  }
}
