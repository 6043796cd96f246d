package dev.toolledger.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections a {@link JdbcLedgerStore} reads and writes through (its data source, the pool it
 * owns if any, SQLite's read connections) and the throwing away of those a storage fault may have
 * poisoned.
 */
final class StoreConnections implements AutoCloseable {
  /** The store's logger: operators filter the store's lines by its name. */
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLedgerStore.class);

  private final DataSource dataSource;

  /**
   * The pool this store opened and closes, or null when it borrows the application's ({@link
   * JdbcLedgerStore#onDataSource}).
   */
  private final HikariDataSource ownPool;

  private final DialectSupport dialect;

  /**
   * The read connections of single-record reads on a SQLite file this store opened; null on
   * PostgreSQL and on an application's data source, where those reads take a pooled connection.
   */
  private final SqliteReaders readers;

  private final String description;

  /** A store on a pool of its own. */
  StoreConnections(
      HikariDataSource pool, DialectSupport dialect, String description, SqliteReaders readers) {
    this(pool, pool, dialect, description, readers);
  }

  /** A store on the application's data source, which it borrows and never closes. */
  StoreConnections(DataSource borrowed, DialectSupport dialect, String description) {
    this(borrowed, null, dialect, description, null);
  }

  private StoreConnections(
      DataSource dataSource,
      HikariDataSource ownPool,
      DialectSupport dialect,
      String description,
      SqliteReaders readers) {
    this.dataSource = dataSource;
    this.ownPool = ownPool;
    this.dialect = dialect;
    this.description = description;
    this.readers = readers;
  }

  DataSource dataSource() {
    return dataSource;
  }

  DialectSupport dialect() {
    return dialect;
  }

  /** SQLite's read connections, or null where single-record reads take a pooled connection. */
  SqliteReaders readers() {
    return readers;
  }

  /** Where the ledger lives, for logs and messages. Never contains a password. */
  String description() {
    return description;
  }

  /** Whether the data source is the application's, which the store must leave open. */
  boolean borrowed() {
    return ownPool == null;
  }

  /**
   * Throws away whatever a storage fault may have poisoned: idle pooled connections are closed,
   * connections in use are closed when they come back, cached statements go with them. The pool
   * opens fresh connections on demand.
   */
  void evictAll() {
    if (readers != null) {
      readers.evict();
    }
    try {
      HikariDataSource hikari = hikari();
      var pool = hikari == null ? null : hikari.getHikariPoolMXBean();
      if (pool != null) {
        pool.softEvictConnections();
      }
    } catch (RuntimeException e) {
      LOG.warn("could not discard the pooled connections of {}", description, e);
    }
  }

  /** Closes the physical connection instead of returning it to the pool. */
  void discard(Connection connection, Throwable failure) {
    try {
      dialect.statements().forget(connection);
      HikariDataSource hikari = hikari();
      if (hikari != null) {
        hikari.evictConnection(connection);
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /** The HikariCP pool behind the connections (own or borrowed), or null for another pool. */
  private HikariDataSource hikari() {
    if (ownPool != null) {
      return ownPool;
    }
    try {
      return dataSource.isWrapperFor(HikariDataSource.class)
          ? dataSource.unwrap(HikariDataSource.class)
          : null;
    } catch (SQLException e) {
      return null;
    }
  }

  /** Closes the store's own pool; a borrowed data source stays open for its owner. */
  @Override
  public void close() {
    if (readers != null) {
      readers.close();
    }
    dialect.statements().clear();
    if (ownPool != null) {
      ownPool.close();
    }
  }
}
