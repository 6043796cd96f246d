package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.auth.TokenStore;
import dev.toolledger.core.engine.DownstreamKeys;
import dev.toolledger.core.engine.SharedRateBuckets;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.identity.KeyHasher;
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
import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.protocol.NotApi;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

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
 *
 * <p>This type is the front door and the ledger's reads; the other jobs live in package-private
 * collaborators: opening ({@link JdbcStores}), write transactions ({@link WriteTransactions},
 * {@link GroupCommit}), failure translation ({@link StorageFaults}, {@link SqliteFileWatch}), the
 * write probe ({@link StorageProbe}), tokens ({@link JdbcTokenStore}), the outbox ({@link
 * JdbcOutboxStore}) and the installation's keys ({@link InstallationKeys}).
 */
@NotApi
public final class JdbcLedgerStore implements LedgerStore, TokenStore, OutboxStore {
  private final StoreConnections connections;
  private final DataSource dataSource;
  private final DialectSupport dialect;
  private final StorageFaults faults;
  private final WriteTransactions writes;
  private final StorageProbe probe;
  private final TokenStore tokens;
  private final OutboxStore outbox;
  private final InstallationKeys installationKeys;

  /**
   * @param groupCommit whether writers share transactions (honoured on SQLite only)
   * @param file the SQLite file to watch for removal and replacement, or null
   */
  JdbcLedgerStore(StoreConnections connections, boolean groupCommit, Path file) {
    this.connections = connections;
    this.dataSource = connections.dataSource();
    this.dialect = connections.dialect();
    this.faults = new StorageFaults(connections);
    this.writes =
        new WriteTransactions(
            connections, faults, new SqliteFileWatch(file, connections), groupCommit);
    this.probe = new StorageProbe(writes, dialect);
    this.tokens = new JdbcTokenStore(connections, faults, writes);
    this.outbox = new JdbcOutboxStore(connections, faults, writes);
    this.installationKeys = new InstallationKeys(connections, faults, writes);
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
    return JdbcStores.sqlite(options, decorator);
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
    return JdbcStores.postgres(options, decorator);
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
    return JdbcStores.onDataSource(dataSource, busyTimeout, claimWait, migrations);
  }

  /** Whether this store borrows the application's data source instead of owning a pool. */
  public boolean borrowsDataSource() {
    return connections.borrowed();
  }

  /**
   * Applies the pending migrations of more components (a tool plugin's own tables) on this open
   * store, in one migration lock with every other node, exactly as at open. Applying what is
   * already applied does nothing.
   *
   * @throws StoreException when a migration fails; the store stays open and usable
   */
  public void migrateComponents(List<SchemaMigrations> components) {
    JdbcStores.applyMigrations(connections, components);
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
    return writes.writeTransactions();
  }

  /**
   * Transactions whose claim found the key recorded (or expired) and ended without writing: the
   * replays decided in the transaction (PostgreSQL). For tests.
   */
  long decidedInTransaction() {
    return writes.decidedInTransaction();
  }

  /**
   * Database commits since the store opened. With group commit one commit may carry the write
   * transactions of several callers, so this can be lower than {@link #writeTransactions()}.
   */
  public long commits() {
    return writes.commits();
  }

  /** Writers waiting for a commit group (for tests). */
  int queuedWriters() {
    return writes.queuedWriters();
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
    return installationKeys.keyHasher();
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
    return installationKeys.downstreamKeys();
  }

  /** Where the ledger lives, for logs ("sqlite:/path/to/file"). Never contains a password. */
  public String description() {
    return connections.description();
  }

  @Override
  public SqlDialect dialect() {
    return dialect.kind();
  }

  @Override
  public Optional<OperationRecord> find(TenantId tenant, OperationKey key) {
    SqliteReaders readers = connections.readers();
    if (readers != null) {
      try {
        return readers.read((c, statements) -> OperationRows.select(c, statements, tenant, key));
      } catch (SQLException e) {
        throw faults.translate(e, "reading an operation");
      }
    }
    try (Connection connection = dataSource.getConnection()) {
      return OperationRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw faults.translate(e, "reading an operation");
    }
  }

  @Override
  public Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key) {
    SqliteReaders readers = connections.readers();
    if (readers != null) {
      try {
        return readers.read((c, statements) -> RetentionRows.select(c, statements, tenant, key));
      } catch (SQLException e) {
        throw faults.translate(e, "reading a tombstone");
      }
    }
    try (Connection connection = dataSource.getConnection()) {
      return RetentionRows.select(connection, dialect.statements(), tenant, key);
    } catch (SQLException e) {
      throw faults.translate(e, "reading a tombstone");
    }
  }

  @Override
  public List<HistoryEntry> history(TenantId tenant, OperationKey key) {
    try (Connection connection = dataSource.getConnection()) {
      return OperationRows.history(connection, tenant, key);
    } catch (SQLException e) {
      throw faults.translate(e, "reading an operation's history");
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
      throw faults.translate(e, "finding expired claims");
    }
  }

  @Override
  public <T> T inTransaction(TransactionWork<T> work) {
    return writes.inTransaction(work);
  }

  /**
   * Whether this store can write right now, proven by a committed write of one probe row (only a
   * commit meets a full disk, an unwritable WAL file or a standby server); a probe that was busy
   * counts as able when another write committed within the last few seconds. The answer is reused
   * for {@link StorageProbe#PROBE_REUSE}, so a health endpoint polled hard does not become a write
   * load.
   *
   * @return empty when the store can write, otherwise a short reason without secrets
   */
  public Optional<String> writeProblem() {
    return probe.writeProblem();
  }

  /** {@link #writeProblem()} without reuse of an earlier answer. */
  Optional<String> probeWrite() {
    return probe.probeWrite();
  }

  // ------------------------------------------------------- tokens, in JdbcTokenStore

  @Override
  public void insert(TokenRecord token) {
    tokens.insert(token);
  }

  @Override
  public Optional<TokenRecord> findBySecretHash(String secretHash) {
    return tokens.findBySecretHash(secretHash);
  }

  @Override
  public List<TokenRecord> list() {
    return tokens.list();
  }

  @Override
  public boolean revoke(String id, Instant at) {
    return tokens.revoke(id, at);
  }

  // ------------------------------------------------------- outbox, in JdbcOutboxStore

  @Override
  public List<OutboxEvent> claimDue(String owner, Duration lease, int limit) {
    return outbox.claimDue(owner, lease, limit);
  }

  @Override
  public boolean markDelivered(String id, String owner) {
    return outbox.markDelivered(id, owner);
  }

  @Override
  public boolean markRetry(String id, String owner, Duration retryIn, String error) {
    return outbox.markRetry(id, owner, retryIn, error);
  }

  @Override
  public boolean markDead(String id, String owner, String error) {
    return outbox.markDead(id, owner, error);
  }

  @Override
  public boolean release(String id, String owner) {
    return outbox.release(id, owner);
  }

  @Override
  public boolean rearm(String id) {
    return outbox.rearm(id);
  }

  @Override
  public Optional<OutboxEvent> findEvent(String id) {
    return outbox.findEvent(id);
  }

  @Override
  public List<OutboxEvent> listEvents(OutboxState state, int limit) {
    return outbox.listEvents(state, limit);
  }

  @Override
  public Map<OutboxState, Long> countEvents() {
    return outbox.countEvents();
  }

  /** Closes the store's own pool; a borrowed data source stays open for its owner. */
  @Override
  public void close() {
    connections.close();
  }

  @Override
  public String toString() {
    return "JdbcLedgerStore[" + connections.description() + "]";
  }
}
