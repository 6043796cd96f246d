package dev.toolledger.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.auth.TokenStore;
import dev.toolledger.core.engine.DownstreamKeys;
import dev.toolledger.core.engine.SharedRateBuckets;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.core.outbox.OutboxStore;
import dev.toolledger.core.store.ExpiredClaim;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.store.UncertainCommitException;
import dev.toolledger.jdbc.migration.Migrator;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteOpenMode;

/**
 * The ledger on a JDBC database: SQLite (embedded, the default) or PostgreSQL (shared by many
 * nodes). Open one with {@link #sqlite(SqliteOptions)} or {@link #postgres(PostgresOptions)}.
 *
 * <p>Writes run in one transaction each; the primary key on (tenant, op_key) decides which caller
 * owns a key. Reads for replays use no write lock. Errors that a fresh attempt may not meet (busy
 * lock, serialization failure, deadlock, dropped connection) surface as {@link
 * TransientStoreException} after the transaction was rolled back.
 *
 * <p>Storage faults (I/O error, read-only, full, missing or replaced database file, a server that
 * refuses writes; recognised by SQLState or vendor code) surface as {@link
 * StoreUnavailableException}, whether the store's own statement or a tool's statement on the
 * transaction's connection met them. The store then throws every pooled connection and cached
 * statement away, so that it writes again as soon as the storage does, without a restart. {@link
 * #writeProblem()} tells a store that can write from one that cannot.
 */
public final class JdbcLedgerStore implements LedgerStore, TokenStore, OutboxStore {
  private final DataSource dataSource;

  /**
   * The pool this store opened and closes, or null when it borrows the application's ({@link
   * #onDataSource}).
   */
  private final HikariDataSource ownPool;

  private final DialectSupport dialect;

  /**
   * The read connections of single-record reads on a SQLite file this store opened; null on
   * PostgreSQL and on an application's data source, where those reads take a pooled connection.
   */
  private final SqliteReaders readers;

  private final String description;
  private final AtomicLong writeTransactions = new AtomicLong();
  private final AtomicLong decidedInTransaction = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final boolean groupCommit;
  private final Queue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
  private volatile KeyHasher keyHasher;
  private volatile DownstreamKeys downstreamKeys;
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLedgerStore.class);

  /** The SQLite file, watched for removal and replacement under the running store; else null. */
  private final Path file;

  private volatile Object fileKey;
  private volatile long lastCommitNanos = System.nanoTime();
  private final Object probeLock = new Object();
  private long probedAtNanos;
  private Optional<String> probed;

  /** How long a {@link #writeProblem()} answer is reused: /health must not become a write load. */
  static final Duration PROBE_REUSE = Duration.ofSeconds(1);

  private JdbcLedgerStore(
      HikariDataSource dataSource,
      DialectSupport dialect,
      String description,
      boolean groupCommit,
      Path file,
      SqliteReaders readers) {
    this(dataSource, dataSource, dialect, description, groupCommit, file, readers);
  }

  private JdbcLedgerStore(
      DataSource dataSource,
      HikariDataSource ownPool,
      DialectSupport dialect,
      String description,
      boolean groupCommit,
      Path file,
      SqliteReaders readers) {
    this.dataSource = dataSource;
    this.readers = readers;
    this.ownPool = ownPool;
    this.dialect = dialect;
    this.description = description;
    this.groupCommit = groupCommit && dialect.serializesWriters();
    this.file = file;
    this.fileKey = file == null ? null : fileKeyOrNull(file);
  }

  /** Opens (creating if needed) a SQLite ledger file and applies pending migrations. */
  public static JdbcLedgerStore sqlite(SqliteOptions options) {
    return sqlite(options, UnaryOperator.identity());
  }

  /**
   * As {@link #sqlite(SqliteOptions)}, with the driver's data source wrapped before it is pooled:
   * the hook tests use to inject faults into every JDBC call. Not reachable from any request.
   */
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
            dataSource,
            new SqliteSupport(options.busyTimeout()),
            "sqlite:" + file,
            options.groupCommit(),
            file,
            // The same data source as the pool's: the same settings on every connection.
            new SqliteReaders(
                connections,
                options.poolSize(),
                Duration.ofMillis(Math.max(250, options.busyTimeout().toMillis()))));
    store.migrate(options.migrations());
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

  /**
   * Opens a pool on a PostgreSQL database and applies pending migrations. Several nodes may do this
   * at the same time on the same fresh database; each migration is applied by exactly one.
   *
   * <p>Connections run at READ COMMITTED (set on the pool, whatever the server's default): see
   * {@code docs/postgresql.md} for why.
   */
  public static JdbcLedgerStore postgres(PostgresOptions options) {
    return postgres(options, UnaryOperator.identity());
  }

  /** As {@link #postgres(PostgresOptions)}, with the driver's data source wrapped (tests). */
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
        new JdbcLedgerStore(dataSource, support, description, false, null, null);
    store.migrate(options.migrations());
    return store;
  }

  /**
   * The ledger on a data source the application owns and keeps (Spring Boot's {@code DataSource}
   * bean, say): the dialect is read from the database, pending migrations are applied, and {@link
   * #close()} leaves the data source open. The ledger's tables live beside the application's, so a
   * tool's effect on the application's tables and the ledger's record commit in one transaction.
   *
   * <p>What differs from a store with its own pool: on PostgreSQL each write transaction sets its
   * own isolation (READ COMMITTED) with {@code SET TRANSACTION}, since the application's
   * connections were not opened for the ledger, and the statement and socket timeouts are the
   * application's pool's; on SQLite each connection taken gets {@code busy_timeout} = the busy
   * timeout, the file is switched to WAL once, group commit is off, and the file is not watched for
   * replacement. Connections are discarded after a storage fault only when the data source is (or
   * wraps) a HikariCP pool; another pool decides itself.
   *
   * @param dataSource a pooled data source on SQLite or PostgreSQL
   * @param busyTimeout SQLite: how long a writer waits for the write lock; ignored on PostgreSQL
   * @param claimWait the engine's wait for a concurrent claim of the same key (see {@link
   *     PostgresOptions#DEFAULT_CLAIM_WAIT}); each claim passes its own wait, so this is not used
   * @param migrations further components' migrations (a plugin's tables), after the ledger's
   * @throws StoreException when the database cannot be reached, is neither SQLite nor PostgreSQL,
   *     or a migration fails
   */
  public static JdbcLedgerStore onDataSource(
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
    JdbcLedgerStore store;
    if ("SQLite".equalsIgnoreCase(product)) {
      DataSource withTimeout = SqliteSessions.withBusyTimeout(dataSource, busyTimeout);
      SqliteSessions.useWal(withTimeout);
      store =
          new JdbcLedgerStore(
              withTimeout,
              null,
              new SqliteSupport(busyTimeout),
              "sqlite (the application's data source)",
              false,
              null,
              null);
    } else if ("PostgreSQL".equalsIgnoreCase(product)) {
      String description =
          url != null && url.startsWith(PostgresOptions.URL_PREFIX)
              ? "postgresql:"
                  + PostgresOptions.redact(url).substring(PostgresOptions.URL_PREFIX.length())
              : "postgresql (the application's data source)";
      store =
          new JdbcLedgerStore(
              dataSource, null, PostgresSupport.perTransaction(), description, false, null, null);
    } else {
      throw new StoreException(
          "the application's data source is "
              + product
              + "; the ledger runs on SQLite or PostgreSQL only");
    }
    store.applyMigrations(migrations);
    return store;
  }

  /** Whether this store borrows the application's data source instead of owning a pool. */
  public boolean borrowsDataSource() {
    return ownPool == null;
  }

  private void migrate(List<SchemaMigrations> extra) {
    try {
      applyMigrations(extra);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Applies the pending migrations of more components (a tool plugin's own tables) on this open
   * store, in one migration lock with every other node, exactly as at open. Applying what is
   * already applied does nothing.
   *
   * @throws StoreException when a migration fails; the store stays open and usable
   */
  public void migrateComponents(List<SchemaMigrations> components) {
    applyMigrations(components);
  }

  private void applyMigrations(List<SchemaMigrations> extra) {
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
    try (Connection connection = dataSource.getConnection()) {
      migrator.migrate(connection, all);
    } catch (SQLException e) {
      throw new StoreException("cannot migrate the ledger database " + description, e);
    } finally {
      dialect.exitWrite();
    }
  }

  /**
   * PostgreSQL: the claim takes the key's advisory lock and reads its record and tombstone in the
   * round trip that begins the transaction; a recorded key ends the transaction before it wrote
   * anything. SQLite: no, a transaction takes the database's only write lock, which a replay must
   * not wait for nor hold.
   */
  @Override
  public boolean decidesClaimInTransaction() {
    return dialect.kind() == SqlDialect.POSTGRESQL;
  }

  /**
   * Write transactions begun since the store opened, committed or not: a replay must not add to it.
   * A transaction whose claim found the key recorded, having written nothing (PostgreSQL: no
   * transaction id assigned, no WAL), is not counted. For benchmarks and metrics.
   */
  public long writeTransactions() {
    return writeTransactions.get();
  }

  /**
   * Transactions whose claim found the key recorded (or expired) and ended without writing: the
   * replays decided in the transaction (PostgreSQL). For tests.
   */
  long decidedInTransaction() {
    return decidedInTransaction.get();
  }

  /**
   * Database commits since the store opened. With group commit one commit may carry the write
   * transactions of several callers, so this can be lower than {@link #writeTransactions()}.
   */
  public long commits() {
    return commits.get();
  }

  /** Writers waiting for a commit group (for tests). */
  int queuedWriters() {
    return queue.size();
  }

  /**
   * The tenants' rate buckets of new operations in this database, shared by every node on it (see
   * {@code LedgerEngine.Builder.sharedRateBuckets}): PostgreSQL only.
   *
   * @throws IllegalStateException on SQLite, whose nodes keep the limit in memory
   */
  public SharedRateBuckets sharedRateBuckets() {
    if (dialect.kind() != SqlDialect.POSTGRESQL) {
      throw new IllegalStateException(
          "a shared rate limit needs PostgreSQL; on SQLite the limit is kept per node"
              + " (--rate-limit-scope node)");
    }
    return new PostgresRateBuckets(dataSource, dialect);
  }

  /** The settings every node sharing this ledger must agree on. */
  public LedgerSettings settings() {
    return new LedgerSettings(dataSource, dialect);
  }

  /** The pool, for tools' own reads outside the engine. */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * The hasher of operation keys for logs and operator output, keyed with this ledger's
   * installation secret: the same on every node sharing the database, across restarts and after a
   * restore of a backup. The first call on a ledger without one makes it ({@link
   * java.security.SecureRandom}, 32 bytes); when several nodes do that at once, the database's
   * primary key lets one secret in and all of them read that one.
   *
   * @throws StoreException when the secret cannot be read or made
   */
  public KeyHasher keyHasher() {
    KeyHasher known = keyHasher;
    if (known != null) {
      return known;
    }
    synchronized (this) {
      if (keyHasher == null) {
        keyHasher = KeyHasher.of(readOrMakeSecret());
      }
      return keyHasher;
    }
  }

  /**
   * The derivation of external tools' downstream keys (an HTTP tool's {@code Idempotency-Key}),
   * keyed with this ledger's downstream-key secret: the same on every node sharing the database,
   * across restarts and after a restore of a backup, and different from every other installation's.
   * Made on first use like {@link #keyHasher()}'s, as a separate secret (row {@value
   * InstallationSecret#DOWNSTREAM_KEYS} of {@code tl_installation}), so that neither can be
   * computed from the other.
   *
   * @throws StoreException when the secret cannot be read or made
   */
  public DownstreamKeys downstreamKeys() {
    DownstreamKeys known = downstreamKeys;
    if (known != null) {
      return known;
    }
    synchronized (this) {
      if (downstreamKeys == null) {
        downstreamKeys = DownstreamKeys.of(readOrMakeSecret(InstallationSecret.DOWNSTREAM_KEYS));
      }
      return downstreamKeys;
    }
  }

  private byte[] readOrMakeSecret() {
    return readOrMakeSecret(InstallationSecret.NAME);
  }

  private byte[] readOrMakeSecret(String name) {
    try (Connection connection = dataSource.getConnection()) {
      Optional<byte[]> existing = InstallationSecret.read(connection, name);
      if (existing.isPresent()) {
        return existing.get();
      }
    } catch (SQLException e) {
      throw translate(e, "reading the installation secret " + name);
    }
    byte[] fresh = KeyHasher.newSecret();
    // Not check-then-insert: the insert does nothing when another node got there first, and the
    // read in the same transaction returns whichever secret the primary key let in.
    return inTransaction(
        tx -> {
          Connection connection = tx.connection();
          InstallationSecret.insertIfAbsent(connection, name, fresh, Instant.now());
          return InstallationSecret.read(connection, name).orElseThrow();
        });
  }

  /** Where the ledger lives, for logs ("sqlite:/path/to/file"). Never contains a password. */
  public String description() {
    return description;
  }

  @Override
  public SqlDialect dialect() {
    return dialect.kind();
  }

  @Override
  public Optional<OperationRecord> find(TenantId tenant, OperationKey key) {
    if (readers != null) {
      try {
        return readers.read((c, statements) -> OperationRows.select(c, statements, tenant, key));
      } catch (SQLException e) {
        throw translate(e, "reading an operation");
      }
    }
    try (Connection connection = dataSource.getConnection()) {
      return OperationRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw translate(e, "reading an operation");
    }
  }

  @Override
  public Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key) {
    if (readers != null) {
      try {
        return readers.read((c, statements) -> RetentionRows.select(c, statements, tenant, key));
      } catch (SQLException e) {
        throw translate(e, "reading a tombstone");
      }
    }
    try (Connection connection = dataSource.getConnection()) {
      return RetentionRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw translate(e, "reading a tombstone");
    }
  }

  @Override
  public List<HistoryEntry> history(TenantId tenant, OperationKey key) {
    try (Connection connection = dataSource.getConnection()) {
      return OperationRows.history(connection, tenant, key);
    } catch (SQLException e) {
      throw translate(e, "reading an operation's history");
    }
  }

  @Override
  public List<ExpiredClaim> expiredClaims(int limit) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT tenant, op_key, tool, tool_version, fingerprint, fence, owner, parameters,"
                    + " downstream_key"
                    + " FROM tl_operations WHERE state = 'IN_PROGRESS' AND lease_until IS NOT NULL"
                    + " AND lease_until < "
                    + dialect.nowMillis()
                    + " ORDER BY lease_until LIMIT ?")) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<ExpiredClaim> claims = new ArrayList<>();
        while (rs.next()) {
          claims.add(
              new ExpiredClaim(
                  TenantId.of(rs.getString("tenant")),
                  OperationKey.of(rs.getString("op_key")),
                  new OperationIntent(
                      rs.getString("tool"),
                      rs.getString("tool_version"),
                      new Fingerprint(rs.getString("fingerprint"))),
                  rs.getLong("fence"),
                  rs.getString("owner"),
                  rs.getString("parameters"),
                  rs.getString("downstream_key")));
        }
        return claims;
      }
    } catch (SQLException e) {
      throw translate(e, "finding expired claims");
    }
  }

  @Override
  public <T> T inTransaction(TransactionWork<T> work) {
    checkFile();
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
    if (groupCommit) {
      return grouped(work);
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
      throw translateWork(failure);
    } finally {
      dialect.exitWrite();
    }
  }

  /** One transaction for one piece of work; the caller holds the writer's turn if there is one. */
  private <T> T alone(TransactionWork<T> work) throws Throwable {
    writeTransactions.incrementAndGet();
    try (Connection connection = dataSource.getConnection()) {
      try {
        dialect.begin(connection);
      } catch (SQLException | RuntimeException e) {
        // A connection whose transaction could not begin is in a state we cannot vouch for (the
        // xerial driver, for one, believes it is in a transaction after a busy BEGIN through
        // setAutoCommit). Never hand it to another caller.
        discard(connection, e);
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
            discard(connection, new IllegalStateException("rollback failed"));
          }
        } else {
          transaction.commit();
          committed();
        }
        return result;
      } catch (Throwable failure) {
        if (!dialect.rollback(connection)) {
          // The transaction's state is unknown: never hand this connection to another caller.
          discard(connection, failure);
        }
        throw unavailableIfFaulted(transaction, failure);
      }
    }
  }

  // ------------------------------------------------------------ group commit (SQLite)

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

  /**
   * Group commit: on a database with one writer at a time, work that queues up while a transaction
   * is being committed shares the next transaction, each piece inside its own savepoint, so that
   * one durable commit (one fsync under {@code synchronous=FULL}) serves all of them. Each piece's
   * result is handed back only after the transaction that holds it committed; a piece that throws
   * is rolled back to its savepoint alone. A lone piece of work runs in a transaction of its own,
   * exactly as without grouping.
   */
  private <T> T grouped(TransactionWork<T> work) {
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
      throw translateWork(mine.failure);
    }
    return mine.result;
  }

  private static final int MAX_GROUP = 256;

  private void runGroup(List<Pending<?>> group) {
    if (group.size() == 1) {
      runAlone(group.get(0));
      return;
    }
    writeTransactions.addAndGet(group.size());
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
        discard(connection, e);
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
          pending.fail(transaction == null ? failure : unavailableIfFaulted(transaction, failure));
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
        committed();
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
      discard(connection, cause);
    }
    String why = "the commit group this operation shared was rolled back; nothing of it remains";
    SQLException fault = dialect.storageFault(cause);
    StoreException rolledBack =
        fault != null ? unavailable(fault, why) : new TransientStoreException(why, cause);
    kept.forEach(p -> p.fail(rolledBack));
    untried.forEach(p -> p.fail(rolledBack));
  }

  private <T> void runAlone(Pending<T> pending) {
    try {
      pending.succeed(alone(pending.work));
    } catch (Throwable failure) {
      pending.fail(failure);
    }
  }

  private void savepoint(Connection connection, String sql) throws SQLException {
    try (PreparedStatement ps = dialect.statements().prepare(connection, sql)) {
      ps.execute();
    }
  }

  private RuntimeException translateWork(Throwable failure) {
    if (failure instanceof StoreUnavailableException unavailable) {
      return unavailable;
    }
    if (failure instanceof UncertainCommitException uncertain) {
      return uncertain; // already says what it knows: the commit may have happened
    }
    SQLException sql = findSqlException(failure);
    if ((failure instanceof WrappedSqlException || failure instanceof SQLException)
        && sql != null) {
      // The store's own statement (a claim, a record, BEGIN, COMMIT) failed.
      return translate(sql, "writing");
    }
    if (sql != null && dialect.isTransient(sql)) {
      return new TransientStoreException(
          "the database asked for a retry (SQLState "
              + sql.getSQLState()
              + ", code "
              + sql.getErrorCode()
              + ")",
          failure);
    }
    if (failure instanceof RuntimeException runtime) {
      return runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure instanceof SQLException e) {
      return translate(e, "writing");
    }
    return new StoreException("a ledger transaction failed: " + failure, failure);
  }

  private static SQLException findSqlException(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e) {
        return e;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private RuntimeException translate(SQLException e, String doing) {
    SQLException fault = dialect.storageFault(e);
    if (fault != null) {
      return unavailable(fault, "the ledger's storage failed while " + doing);
    }
    if (dialect.isTransient(e)) {
      return new TransientStoreException(
          "the database asked for a retry while " + doing + " (SQLState " + e.getSQLState() + ")",
          e);
    }
    return new StoreException(
        "database error while "
            + doing
            + " (SQLState "
            + e.getSQLState()
            + ", code "
            + e.getErrorCode()
            + "): "
            + e.getMessage(),
        e);
  }

  /**
   * A tool's failure is the ledger's when the transaction's connection met a storage fault, by the
   * tool's statement or the store's: whatever the tool made of the SQLException, the storage
   * failed. Any other exception of the tool stays the tool's.
   */
  private Throwable unavailableIfFaulted(JdbcTransaction transaction, Throwable failure) {
    SQLException fault = transaction.storageFault();
    if (fault == null || failure instanceof StoreUnavailableException) {
      return failure;
    }
    StoreUnavailableException unavailable =
        unavailable(fault, "the ledger's storage failed during the transaction");
    if (failure != fault) {
      unavailable.addSuppressed(failure);
    }
    return unavailable;
  }

  /**
   * Throws away whatever a storage fault may have poisoned and says so: idle pooled connections are
   * closed, connections in use are closed when they come back, cached statements go with them. The
   * pool opens fresh connections on demand.
   */
  private StoreUnavailableException unavailable(SQLException fault, String what) {
    evictAll();
    LOG.atWarn()
        .addKeyValue("sqlState", fault.getSQLState())
        .addKeyValue("code", fault.getErrorCode())
        .log("storage fault on {}; pooled connections discarded", description);
    return new StoreUnavailableException(
        what
            + " (SQLState "
            + fault.getSQLState()
            + ", code "
            + fault.getErrorCode()
            + "); nothing was recorded. The node recovers by itself once the storage does",
        fault);
  }

  private void evictAll() {
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

  private void committed() {
    commits.incrementAndGet();
    lastCommitNanos = System.nanoTime();
  }

  /**
   * Before a write on SQLite: the file must still be the one the pool's connections opened. A
   * connection keeps writing into a file that was removed (the writes are lost with it) or replaced
   * (the writes miss the new file) without an error in WAL mode, so the store looks.
   */
  private void checkFile() {
    if (file == null) {
      return;
    }
    Object now;
    try {
      now = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      evictAll();
      throw new StoreUnavailableException(
          "the ledger's database file "
              + file
              + " is missing; nothing was recorded. Put the file back (or restore a backup, see"
              + " docs/operations.md); the node writes again as soon as it is there",
          e);
    } catch (IOException e) {
      evictAll();
      throw new StoreUnavailableException(
          "cannot read the ledger's database file " + file + "; nothing was recorded", e);
    }
    if (!Objects.equals(now, fileKey)) {
      LOG.warn(
          "the ledger's database file {} was replaced under the running node; reopening it", file);
      evictAll();
      fileKey = now;
    }
  }

  private static Object fileKeyOrNull(Path file) {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Whether this store can write right now, proven by a committed write of one probe row (only a
   * commit meets a full disk, an unwritable WAL file or a standby server); a probe that was busy
   * counts as able when another write committed within the last few seconds. The answer is reused
   * for {@link #PROBE_REUSE}, so a health endpoint polled hard does not become a write load.
   *
   * @return empty when the store can write, otherwise a short reason without secrets
   */
  public Optional<String> writeProblem() {
    synchronized (probeLock) {
      long now = System.nanoTime();
      if (probed != null && now - probedAtNanos < PROBE_REUSE.toNanos()) {
        return probed;
      }
      probed = probeWrite();
      probedAtNanos = System.nanoTime();
      return probed;
    }
  }

  /** {@link #writeProblem()} without reuse of an earlier answer. */
  Optional<String> probeWrite() {
    try {
      inTransaction(
          tx -> {
            try (PreparedStatement ps =
                dialect
                    .statements()
                    .prepare(
                        ((JdbcTransaction) tx).rawConnection(),
                        "INSERT INTO tl_write_probe (id, probed_at) VALUES (1, ?)"
                            + " ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at")) {
              ps.setLong(1, System.currentTimeMillis());
              ps.executeUpdate();
            } catch (SQLException e) {
              throw new WrappedSqlException(e);
            }
            return null;
          });
      return Optional.empty();
    } catch (TransientStoreException e) {
      if (System.nanoTime() - lastCommitNanos < BUSY_BUT_WRITING.toNanos()) {
        return Optional.empty();
      }
      return Optional.of("the ledger's database stayed busy and nothing committed lately");
    } catch (StoreException e) {
      // The reason is public (/health needs no token): no path, no message of the driver.
      LOG.warn("write probe failed: {}", e.getMessage());
      if (e.getCause() instanceof NoSuchFileException) {
        return Optional.of("the ledger cannot write: its database file is missing");
      }
      SQLException sql = findSqlException(e);
      return Optional.of(
          "the ledger cannot write"
              + (sql == null
                  ? ""
                  : " (SQLState " + sql.getSQLState() + ", code " + sql.getErrorCode() + ")"));
    }
  }

  private static final Duration BUSY_BUT_WRITING = Duration.ofSeconds(5);

  /** Closes the physical connection instead of returning it to the pool. */
  private void discard(Connection connection, Throwable failure) {
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

  // ---------------------------------------------------------------- tokens

  @Override
  public void insert(TokenRecord token) {
    inTransaction(
        tx -> {
          try (PreparedStatement ps =
              tx.connection()
                  .prepareStatement(
                      "INSERT INTO tl_tokens (id, secret_hash, tenant, label, created_at,"
                          + " revoked_at, scopes) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, token.id());
            ps.setString(2, token.secretHash());
            ps.setString(3, token.tenant().map(TenantId::value).orElse(LedgerSchema.NO_TENANT));
            ps.setString(4, token.label());
            ps.setLong(5, token.createdAt().toEpochMilli());
            if (token.revokedAt().isPresent()) {
              ps.setLong(6, token.revokedAt().get().toEpochMilli());
            } else {
              ps.setNull(6, Types.BIGINT);
            }
            ps.setString(7, token.scopes().toString());
            ps.executeUpdate();
          }
          return null;
        });
  }

  @Override
  public Optional<TokenRecord> findBySecretHash(String secretHash) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT id, secret_hash, tenant, label, created_at, revoked_at, scopes FROM tl_tokens"
                    + " WHERE secret_hash = ?")) {
      ps.setString(1, secretHash);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readToken(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw translate(e, "reading a token");
    }
  }

  @Override
  public List<TokenRecord> list() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT id, secret_hash, tenant, label, created_at, revoked_at, scopes FROM tl_tokens"
                    + " ORDER BY created_at, id");
        ResultSet rs = ps.executeQuery()) {
      List<TokenRecord> tokens = new ArrayList<>();
      while (rs.next()) {
        tokens.add(readToken(rs));
      }
      return tokens;
    } catch (SQLException e) {
      throw translate(e, "listing tokens");
    }
  }

  @Override
  public boolean revoke(String id, Instant at) {
    return inTransaction(
        tx -> {
          try (PreparedStatement ps =
              tx.connection()
                  .prepareStatement(
                      "UPDATE tl_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")) {
            ps.setLong(1, at.toEpochMilli());
            ps.setString(2, id);
            return ps.executeUpdate() == 1;
          }
        });
  }

  private static TokenRecord readToken(ResultSet rs) throws SQLException {
    String stored = rs.getString("scopes");
    Scopes scopes = Scopes.parse(stored == null ? LedgerSchema.TOKENS_BEFORE_SCOPES : stored);
    return new TokenRecord(
        rs.getString("id"),
        rs.getString("secret_hash"),
        scopes.isOperator() ? Optional.empty() : Optional.of(TenantId.of(rs.getString("tenant"))),
        scopes,
        rs.getString("label"),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        OperationRows.instant(rs, "revoked_at"));
  }

  // ---------------------------------------------------------------- outbox

  @Override
  public List<OutboxEvent> claimDue(String owner, Duration lease, int limit) {
    // A relay polls often; an idle poll reads instead of taking SQLite's write lock.
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT 1 FROM tl_outbox WHERE state = 'PENDING' AND next_attempt_at <= "
                    + dialect.nowMillis()
                    + " LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return List.of();
      }
    } catch (SQLException e) {
      throw translate(e, "looking for due outbox events");
    }
    return inTransaction(
        tx ->
            OutboxRows.claimDue(
                ((JdbcTransaction) tx).rawConnection(), dialect, owner, lease, limit));
  }

  @Override
  public boolean markDelivered(String id, String owner) {
    return outboxUpdate(
        OutboxRows.markDeliveredSql(dialect),
        ps -> {
          ps.setString(1, id);
          ps.setString(2, owner);
        });
  }

  @Override
  public boolean markRetry(String id, String owner, Duration retryIn, String error) {
    return outboxUpdate(
        OutboxRows.markRetrySql(dialect),
        ps -> {
          ps.setLong(1, retryIn.toMillis());
          ps.setString(2, truncate(error));
          ps.setString(3, id);
          ps.setString(4, owner);
        });
  }

  @Override
  public boolean markDead(String id, String owner, String error) {
    return outboxUpdate(
        OutboxRows.MARK_DEAD,
        ps -> {
          ps.setString(1, truncate(error));
          ps.setString(2, id);
          ps.setString(3, owner);
        });
  }

  @Override
  public boolean release(String id, String owner) {
    return outboxUpdate(
        OutboxRows.RELEASE,
        ps -> {
          ps.setString(1, id);
          ps.setString(2, owner);
        });
  }

  @Override
  public boolean rearm(String id) {
    return outboxUpdate(OutboxRows.rearmSql(dialect), ps -> ps.setString(1, id));
  }

  @Override
  public Optional<OutboxEvent> findEvent(String id) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT " + OutboxRows.COLUMNS + " FROM tl_outbox WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(OutboxRows.read(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw translate(e, "reading an outbox event");
    }
  }

  @Override
  public List<OutboxEvent> listEvents(OutboxState state, int limit) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT "
                    + OutboxRows.COLUMNS
                    + " FROM tl_outbox WHERE state = ? ORDER BY created_at, id LIMIT ?")) {
      ps.setString(1, state.name());
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<OutboxEvent> events = new ArrayList<>();
        while (rs.next()) {
          events.add(OutboxRows.read(rs));
        }
        return events;
      }
    } catch (SQLException e) {
      throw translate(e, "listing outbox events");
    }
  }

  @Override
  public Map<OutboxState, Long> countEvents() {
    Map<OutboxState, Long> counts = new EnumMap<>(OutboxState.class);
    for (OutboxState state : OutboxState.values()) {
      counts.put(state, 0L);
    }
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement("SELECT state, COUNT(*) FROM tl_outbox GROUP BY state");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        counts.put(OutboxState.valueOf(rs.getString(1)), rs.getLong(2));
      }
      return counts;
    } catch (SQLException e) {
      throw translate(e, "counting outbox events");
    }
  }

  private boolean outboxUpdate(String sql, JdbcTransaction.Binder binder) {
    return inTransaction(
        tx -> {
          try (PreparedStatement ps =
              ((JdbcTransaction) tx).rawConnection().prepareStatement(sql)) {
            binder.bind(ps);
            return ps.executeUpdate() == 1;
          }
        });
  }

  private static String truncate(String text) {
    return text == null || text.length() <= 500 ? text : text.substring(0, 500) + "...";
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

  @Override
  public String toString() {
    return "JdbcLedgerStore[" + description + "]";
  }

  /** Carries a SQLException out of the SPI's unchecked methods; translated at the boundary. */
  static final class WrappedSqlException extends RuntimeException {
    WrappedSqlException(SQLException cause) {
      super(cause.getMessage(), cause);
    }
  }
}
