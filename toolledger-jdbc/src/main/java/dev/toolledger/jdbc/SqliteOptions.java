package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.protocol.NotApi;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How to open a SQLite ledger. Immutable; build with {@link #builder(Path)}.
 *
 * <p>Every connection is opened in WAL mode with the configured {@code synchronous} level and busy
 * timeout, and every write transaction starts with {@code BEGIN IMMEDIATE}, so a writer takes the
 * write lock before it reads and cannot fail half-way with SQLITE_BUSY.
 */
@NotApi
public final class SqliteOptions {
  /** Default database file: {@value}. */
  public static final String DEFAULT_PATH = "toolledger.db";

  /** Default busy timeout: 5 seconds. */
  public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(5);

  /** Default pool size: 8 connections (readers run in parallel; writers take turns). */
  public static final int DEFAULT_POOL_SIZE = 8;

  private final Path path;
  private final Synchronous synchronous;
  private final Duration busyTimeout;
  private final int poolSize;
  private final boolean groupCommit;
  private final List<SchemaMigrations> migrations;

  private SqliteOptions(Builder b) {
    this.path = b.path;
    this.synchronous = b.synchronous;
    this.busyTimeout = b.busyTimeout;
    this.poolSize = b.poolSize;
    this.groupCommit = b.groupCommit;
    this.migrations = List.copyOf(b.migrations);
  }

  public static Builder builder(Path path) {
    return new Builder(path);
  }

  public Path path() {
    return path;
  }

  public Synchronous synchronous() {
    return synchronous;
  }

  public Duration busyTimeout() {
    return busyTimeout;
  }

  public int poolSize() {
    return poolSize;
  }

  /** Whether concurrent writes of this process share commits; see {@link Builder#groupCommit}. */
  public boolean groupCommit() {
    return groupCommit;
  }

  /** Migrations of tools' own tables, applied after the ledger's. */
  public List<SchemaMigrations> migrations() {
    return migrations;
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private final Path path;
    private Synchronous synchronous = Synchronous.FULL;
    private Duration busyTimeout = DEFAULT_BUSY_TIMEOUT;
    private int poolSize = DEFAULT_POOL_SIZE;
    private boolean groupCommit = true;
    private final List<SchemaMigrations> migrations = new ArrayList<>();

    private Builder(Path path) {
      this.path = path;
    }

    /** Default {@link Synchronous#FULL}. */
    public Builder synchronous(Synchronous synchronous) {
      this.synchronous = synchronous;
      return this;
    }

    /**
     * How long a writer waits for the write lock (held by another connection or process) before the
     * transaction is reported busy. Default 5 seconds.
     */
    public Builder busyTimeout(Duration busyTimeout) {
      this.busyTimeout = busyTimeout;
      return this;
    }

    /**
     * Pooled connections. Default 8. Single-record reads (lookups, replays) use up to as many read
     * connections of their own besides the pool, so a node opens up to twice this many.
     */
    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    /**
     * Group commit: write transactions that queue up while another one commits share the next
     * commit, each in its own savepoint, and each hears its outcome only once that commit is
     * durable. Under {@code synchronous=FULL} one sync then serves many operations. A lone writer
     * is unaffected. Default on.
     */
    public Builder groupCommit(boolean groupCommit) {
      this.groupCommit = groupCommit;
      return this;
    }

    public Builder migrations(SchemaMigrations... components) {
      this.migrations.addAll(List.of(components));
      return this;
    }

    public Builder migrations(List<SchemaMigrations> components) {
      this.migrations.addAll(components);
      return this;
    }

    public SqliteOptions build() {
      Objects.requireNonNull(path, "path must not be null");
      Objects.requireNonNull(synchronous, "synchronous must not be null");
      if (busyTimeout == null || busyTimeout.isNegative()) {
        throw new IllegalArgumentException("busyTimeout must be zero or positive");
      }
      if (busyTimeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("busyTimeout is too long");
      }
      if (poolSize < 2) {
        throw new IllegalArgumentException("poolSize must be at least 2 (one writer, one reader)");
      }
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null && !java.nio.file.Files.isDirectory(parent)) {
        throw new IllegalArgumentException(
            "the database's directory " + parent + " does not exist; create it first");
      }
      return new SqliteOptions(this);
    }
  }
}
