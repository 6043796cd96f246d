package dev.toolledger.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.jdbc.migration.Migrator;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteOpenMode;

/**
 * Opens a {@link JdbcLedgerStore}: the driver's data source and its pool with the ledger's
 * settings, then the pending schema migrations. The front door is {@link JdbcLedgerStore}'s static
 * factories; this is where they do their work.
 */
final class JdbcStores {
  private JdbcStores() {}

  /** See {@link JdbcLedgerStore#sqlite(SqliteOptions)}. */
  static JdbcLedgerStore sqlite(SqliteOptions options, UnaryOperator<DataSource> decorator) {
    Path file = options.path().toAbsolutePath();
    if (!Files.exists(file)) {
      SQLiteDataSource creating = new SQLiteDataSource(sqliteConfig(options));
      creating.setUrl("jdbc:sqlite:" + file);
      try (Connection created = creating.getConnection()) {
        // Only created here: see below.
      } catch (SQLException e) {
        throw new StoreException("cannot create the ledger database sqlite:" + file, e);
      }
    }
    // Pooled connections never create the file: if it is removed under the running store, a new
    // connection fails with SQLITE_CANTOPEN instead of writing into a new, empty ledger.
    SQLiteConfig config = sqliteConfig(options);
    config.resetOpenMode(SQLiteOpenMode.CREATE);
    SQLiteDataSource sqlite = new SQLiteDataSource(config);
    sqlite.setUrl("jdbc:sqlite:" + file);

    DataSource connections = decorator.apply(sqlite);
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(connections);
    pool.setPoolName("toolledger-sqlite");
    pool.setMaximumPoolSize(options.poolSize());
    pool.setMinimumIdle(1);
    pool.setAutoCommit(true);
    pool.setConnectionTimeout(Math.max(250, options.busyTimeout().toMillis()));
    HikariDataSource dataSource = new HikariDataSource(pool);
    JdbcLedgerStore store =
        new JdbcLedgerStore(
            new StoreConnections(
                dataSource,
                new SqliteSupport(options.busyTimeout()),
                "sqlite:" + file,
                // The same data source as the pool's: the same settings on every connection.
                new SqliteReaders(
                    connections,
                    options.poolSize(),
                    Duration.ofMillis(Math.max(250, options.busyTimeout().toMillis())))),
            options.groupCommit(),
            file);
    migrateOrClose(store, options.migrations());
    return store;
  }

  private static SQLiteConfig sqliteConfig(SqliteOptions options) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(
        options.synchronous() == Synchronous.FULL
            ? SQLiteConfig.SynchronousMode.FULL
            : SQLiteConfig.SynchronousMode.NORMAL);
    config.setBusyTimeout((int) options.busyTimeout().toMillis());
    config.enforceForeignKeys(true);
    return config;
  }

  /** See {@link JdbcLedgerStore#postgres(PostgresOptions)}. */
  static JdbcLedgerStore postgres(PostgresOptions options, UnaryOperator<DataSource> decorator) {
    PGSimpleDataSource postgres = new PGSimpleDataSource();
    postgres.setURL(options.url());
    options.user().ifPresent(postgres::setUser);
    options.password().ifPresent(postgres::setPassword);
    // PostgreSQL's error details quote the values of the failing row ("Key (tenant, op_key)=(...)"
    // or "Failing row contains (...)"): keep them out of exception messages, hence out of logs.
    postgres.setLogServerErrorDetail(false);
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(decorator.apply(postgres));
    pool.setPoolName("toolledger-postgresql");
    pool.setMaximumPoolSize(options.poolSize());
    pool.setMinimumIdle(Math.min(2, options.poolSize()));
    pool.setAutoCommit(true);
    pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    PostgresSupport support = new PostgresSupport();
    PostgresLinkBounds.apply(options, postgres, pool);
    pool.setConnectionTimeout(options.connectionTimeout().toMillis());
    String description =
        "postgresql:" + options.redactedUrl().substring(PostgresOptions.URL_PREFIX.length());
    HikariDataSource dataSource;
    try {
      dataSource = new HikariDataSource(pool);
    } catch (RuntimeException e) {
      // Hikari fails fast when the first connection cannot be made; its message is the driver's,
      // which names the host but never the password.
      throw new StoreException(
          "cannot connect to the ledger database " + description + ": " + e.getMessage(), e);
    }
    JdbcLedgerStore store =
        new JdbcLedgerStore(
            new StoreConnections(dataSource, support, description, null), false, null);
    migrateOrClose(store, options.migrations());
    return store;
  }

  /** See {@link JdbcLedgerStore#onDataSource}. */
  static JdbcLedgerStore onDataSource(
      DataSource dataSource,
      Duration busyTimeout,
      Duration claimWait,
      List<SchemaMigrations> migrations) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(busyTimeout, "busyTimeout");
    Objects.requireNonNull(claimWait, "claimWait");
    Objects.requireNonNull(migrations, "migrations");
    String product;
    String url;
    try (Connection connection = dataSource.getConnection()) {
      product = connection.getMetaData().getDatabaseProductName();
      url = connection.getMetaData().getURL();
    } catch (SQLException e) {
      throw new StoreException(
          "cannot connect to the application's data source (SQLState " + e.getSQLState() + ")", e);
    }
    StoreConnections connections;
    if ("SQLite".equalsIgnoreCase(product)) {
      DataSource withTimeout = SqliteSessions.withBusyTimeout(dataSource, busyTimeout);
      SqliteSessions.useWal(withTimeout);
      connections =
          new StoreConnections(
              withTimeout,
              new SqliteSupport(busyTimeout),
              "sqlite (the application's data source)");
    } else if ("PostgreSQL".equalsIgnoreCase(product)) {
      String description =
          url != null && url.startsWith(PostgresOptions.URL_PREFIX)
              ? "postgresql:"
                  + PostgresOptions.redact(url).substring(PostgresOptions.URL_PREFIX.length())
              : "postgresql (the application's data source)";
      connections = new StoreConnections(dataSource, PostgresSupport.perTransaction(), description);
    } else {
      throw new StoreException(
          "the application's data source is "
              + product
              + "; the ledger runs on SQLite or PostgreSQL only");
    }
    JdbcLedgerStore store = new JdbcLedgerStore(connections, false, null);
    applyMigrations(connections, migrations);
    return store;
  }

  private static void migrateOrClose(JdbcLedgerStore store, List<SchemaMigrations> extra) {
    try {
      store.migrateComponents(extra);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Applies the ledger's pending migrations, then {@code extra}'s, in one migration lock with every
   * other node. Applying what is already applied does nothing.
   */
  static void applyMigrations(StoreConnections connections, List<SchemaMigrations> extra) {
    DialectSupport dialect = connections.dialect();
    List<SchemaMigrations> all = new ArrayList<>();
    all.add(LedgerSchema.migrations());
    all.addAll(extra);
    Migrator migrator = new Migrator(dialect.kind(), dialect, Clock.systemUTC());
    try {
      if (!dialect.enterWrite()) {
        throw new StoreException("the database stayed locked; cannot apply schema migrations");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while waiting to migrate", e);
    }
    try (Connection connection = connections.dataSource().getConnection()) {
      migrator.migrate(connection, all);
    } catch (SQLException e) {
      throw new StoreException(
          "cannot migrate the ledger database " + connections.description(), e);
    } finally {
      dialect.exitWrite();
    }
  }
}
