package dev.toolledger.bench;

/**
 * Plain transactions, one commit each, on the store's pool but without its transaction machinery
 * (no group commit): how an application without the ledger would write. On SQLite writers take
 * turns on a fair lock; on PostgreSQL they run in parallel.
 */
final class PlainTransactions {
  private final Target target;
  private final boolean sqlite;
  private final java.util.concurrent.Semaphore writer = new java.util.concurrent.Semaphore(1, true);

  PlainTransactions(Target target) {
    this.target = target;
    this.sqlite = target.store.dialect() == dev.toolledger.api.SqlDialect.SQLITE;
  }

  interface Work<T> {
    T run(java.sql.Connection connection) throws Exception;
  }

  <T> T run(Work<T> work) throws Exception {
    if (sqlite) {
      writer.acquire();
    }
    try (java.sql.Connection connection = target.store.dataSource().getConnection()) {
      if (sqlite) {
        try (java.sql.Statement st = connection.createStatement()) {
          st.execute("BEGIN IMMEDIATE");
        }
      } else {
        connection.setAutoCommit(false);
      }
      T result;
      try {
        result = work.run(connection);
      } catch (Exception e) {
        if (sqlite) {
          try (java.sql.Statement st = connection.createStatement()) {
            st.execute("ROLLBACK");
          }
        } else {
          connection.rollback();
        }
        throw e;
      }
      if (sqlite) {
        try (java.sql.Statement st = connection.createStatement()) {
          st.execute("COMMIT");
        }
      } else {
        connection.commit();
      }
      return result;
    } finally {
      if (sqlite) {
        writer.release();
      }
    }
  }
}
