package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/** The read connections of a SQLite ledger, on a real file in WAL mode. */
class SqliteReadersTest {
  private static final String SELECT = "SELECT name FROM items WHERE id = ?";

  @TempDir Path dir;
  private SQLiteDataSource sqlite;
  private SqliteReaders readers;

  @BeforeEach
  void open() throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    sqlite = new SQLiteDataSource(config);
    sqlite.setUrl("jdbc:sqlite:" + dir.resolve("readers.db"));
    write("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
    write("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
    readers = new SqliteReaders(sqlite, 4, Duration.ofSeconds(5));
  }

  @AfterEach
  void close() {
    readers.close();
  }

  private void write(String sql) throws SQLException {
    try (Connection writer = sqlite.getConnection();
        Statement st = writer.createStatement()) {
      st.execute(sql);
    }
  }

  private String name(int id, List<Connection> used) throws SQLException {
    return readers.read(
        (connection, statements) -> {
          used.add(connection);
          return statements.query(
              connection, SELECT, ps -> ps.setInt(1, id), rs -> rs.next() ? rs.getString(1) : null);
        });
  }

  @Test
  void aReadConnectionIsReusedAndSeesWritesCommittedByAnotherConnection() throws SQLException {
    List<Connection> used = new ArrayList<>();
    assertThat(name(1, used)).isEqualTo("one");
    assertThat(name(3, used)).isNull();

    write("UPDATE items SET name = 'uno' WHERE id = 1");
    write("INSERT INTO items VALUES (3, 'three')");

    assertThat(name(1, used)).isEqualTo("uno");
    assertThat(name(3, used)).isEqualTo("three");
    assertThat(used).hasSize(4).containsOnly(used.get(0));
    assertThat(readers.open()).isEqualTo(1);
  }

  /**
   * The driver is told that a read connection only reads, which spares each read that finds no row
   * the driver's BEGIN and COMMIT; a connection closed back into a pool is told otherwise first, so
   * that the next borrower finds it in auto-commit and its own {@code setAutoCommit(false)} opens a
   * transaction (see BorrowedDataSourceTest for what goes wrong otherwise).
   */
  @Test
  void aReadConnectionClosedBackIntoAPoolIsInAutoCommitAgain() throws SQLException {
    readers.close();
    HikariConfig config = new HikariConfig();
    config.setDataSource(sqlite);
    config.setMaximumPoolSize(1);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      readers = new SqliteReaders(pool, 1, Duration.ofSeconds(5));
      boolean autoCommitWhileReading =
          readers.read(
              (connection, statements) -> {
                statements.query(connection, SELECT, ps -> ps.setInt(1, 9), rs -> rs.next());
                return connection.getAutoCommit();
              });
      assertThat(autoCommitWhileReading).isFalse();
      readers.close();

      try (Connection next = pool.getConnection()) {
        assertThat(next.getAutoCommit()).isTrue();
      }
    }
  }

  @Test
  void aConnectionWhoseReadThrewIsClosedAndNotGivenBack() throws SQLException {
    List<Connection> used = new ArrayList<>();
    assertThat(name(1, used)).isEqualTo("one");

    assertThatThrownBy(
            () ->
                readers.read(
                    (connection, statements) -> {
                      used.add(connection);
                      throw new SQLException("disk I/O error", "HY000", 10);
                    }))
        .hasMessage("disk I/O error");
    assertThat(used.get(1)).isSameAs(used.get(0));
    assertThat(used.get(0).isClosed()).isTrue();
    assertThat(readers.open()).isZero();

    assertThat(name(2, used)).isEqualTo("two");
    assertThat(used.get(2)).isNotSameAs(used.get(0));
    assertThat(used.get(2).isClosed()).isFalse();
  }

  @Test
  void closingClosesTheConnectionsAndRefusesLaterReads() throws SQLException {
    List<Connection> used = new ArrayList<>();
    assertThat(name(1, used)).isEqualTo("one");

    readers.close();

    assertThat(used.get(0).isClosed()).isTrue();
    assertThat(readers.open()).isZero();
    assertThatThrownBy(() -> name(1, used))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void evictionClosesIdleConnectionsAtOnceAndThoseInUseWhenTheyComeBack() throws Exception {
    List<Connection> used = new ArrayList<>();

    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch evicted = new CountDownLatch(1);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      Future<Connection> inUse =
          other.submit(
              () ->
                  readers.read(
                      (connection, statements) -> {
                        reading.countDown();
                        awaitQuietly(evicted);
                        return connection;
                      }));
      assertThat(reading.await(5, TimeUnit.SECONDS)).isTrue();
      // A second connection, idle once this read is done.
      assertThat(name(1, used)).isEqualTo("one");
      Connection idle = used.get(0);
      assertThat(readers.open()).isEqualTo(2);
      readers.evict();
      assertThat(idle.isClosed()).isTrue();
      evicted.countDown();
      Connection returned = inUse.get(5, TimeUnit.SECONDS);
      assertThat(returned.isClosed()).isTrue();
    } finally {
      other.shutdownNow();
    }

    assertThat(readers.open()).isZero();
    assertThat(name(2, used)).isEqualTo("two");
    assertThat(used.get(1).isClosed()).isFalse();
    assertThat(readers.open()).isEqualTo(1);
  }

  @Test
  void manyThreadsShareAtMostTheirNumberOfConnections() throws Exception {
    Set<Connection> seen = ConcurrentHashMap.newKeySet();
    AtomicInteger wrong = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        done.add(
            threads.submit(
                () -> {
                  List<Connection> used = new ArrayList<>();
                  for (int i = 0; i < 300; i++) {
                    int id = 1 + (i % 2);
                    if (!(id == 1 ? "one" : "two").equals(name(id, used))) {
                      wrong.incrementAndGet();
                    }
                    assertThat(readers.open()).isLessThanOrEqualTo(4);
                  }
                  seen.addAll(used);
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(wrong).hasValue(0);
    assertThat(seen).hasSizeBetween(1, 4);
  }

  @Test
  void aReadThatFindsNoConnectionFreeWithinTheTimeoutFailsAsTransient() throws Exception {
    readers.close();
    readers = new SqliteReaders(sqlite, 1, Duration.ofMillis(100));
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      Future<?> holder =
          other.submit(
              () ->
                  readers.read(
                      (connection, statements) -> {
                        holding.countDown();
                        awaitQuietly(release);
                        return null;
                      }));
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(() -> name(1, new ArrayList<>()))
          .isInstanceOf(SQLTransientConnectionException.class);
      release.countDown();
      holder.get(5, TimeUnit.SECONDS);
    } finally {
      other.shutdownNow();
    }
    assertThat(name(1, new ArrayList<>())).isEqualTo("one");
  }

  @Test
  void aClosedStoreRefusesLookupsInsteadOfReadingOnAConnectionItKept() {
    JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
    TenantId tenant = TenantId.of("t");
    assertThat(store.find(tenant, OperationKey.of("k"))).isEmpty();
    assertThat(store.findTombstone(tenant, OperationKey.of("k"))).isEmpty();

    store.close();

    assertThatThrownBy(() -> store.find(tenant, OperationKey.of("k")))
        .isInstanceOf(StoreException.class);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
