package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The SQLite store under many writers, and against a writer it does not know about. */
class SqliteContentionTest {
  private static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("ledger.db");
  }

  private static String pragma(Connection c, String name) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private long count(JdbcLedgerStore store, String sql) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Synchronous.class)
  void everyPooledConnectionHasWalTheSynchronousLevelAndTheBusyTimeout(Synchronous level)
      throws Exception {
    int poolSize = 4;
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(file())
                .poolSize(poolSize)
                .synchronous(level)
                .busyTimeout(Duration.ofMillis(1234))
                .build())) {
      // Holding them all at once forces the pool to open every one of its connections.
      List<Connection> held = new ArrayList<>();
      try {
        for (int i = 0; i < poolSize; i++) {
          held.add(store.dataSource().getConnection());
        }
        for (Connection c : held) {
          assertThat(pragma(c, "journal_mode")).isEqualTo("wal");
          assertThat(pragma(c, "synchronous")).isEqualTo(level == Synchronous.FULL ? "2" : "1");
          assertThat(pragma(c, "busy_timeout")).isEqualTo("1234");
        }
      } finally {
        for (Connection c : held) {
          c.close();
        }
      }
    }
  }

  @Test
  void manyConcurrentWritersAllExecuteWithoutBusyErrors() throws Exception {
    int threads = 16;
    int keysPerThread = 50;
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(file()).migrations(ItemsTool.MIGRATIONS).build())) {
      LedgerEngine engine = LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool())).build();
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<List<ExecutionOutcome>>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          futures.add(
              pool.submit(
                  () -> {
                    start.await();
                    List<ExecutionOutcome> outcomes = new ArrayList<>();
                    for (int k = 0; k < keysPerThread; k++) {
                      outcomes.add(
                          engine.execute(
                              Invocation.of(
                                  ACME,
                                  OperationKey.of("t" + thread + "-k" + k),
                                  "create-item",
                                  Json.parse("{\"name\":\"n\"}"))));
                    }
                    return outcomes;
                  }));
        }
        List<ExecutionOutcome> all = new ArrayList<>();
        for (Future<List<ExecutionOutcome>> future : futures) {
          all.addAll(future.get(120, TimeUnit.SECONDS));
        }

        assertThat(all).hasSize(threads * keysPerThread).allMatch(o -> o instanceof Executed);
        assertThat(count(store, "SELECT COUNT(*) FROM test_items"))
            .isEqualTo(threads * keysPerThread);
        assertThat(count(store, "SELECT COUNT(*) FROM tl_operations"))
            .isEqualTo(threads * keysPerThread);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void writerBlockedByAnotherConnectionPastTheBusyTimeoutGetsBusyAndLeavesNothing()
      throws Exception {
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(file())
                .busyTimeout(Duration.ofMillis(200))
                .migrations(ItemsTool.MIGRATIONS)
                .build())) {
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool()))
              .config(
                  EngineConfig.builder()
                      .transactionAttempts(2)
                      .transactionBackoff(Duration.ZERO, Duration.ZERO)
                      .build())
              .build();
      Invocation invocation =
          Invocation.of(
              ACME, OperationKey.of("op-1"), "create-item", Json.parse("{\"name\":\"a\"}"));

      // A connection outside the store's pool and its in-process gate, as another process
      // (a CLI command, a backup) would hold the write lock.
      ExecutionOutcome blocked;
      try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file());
          Statement st = other.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        blocked = engine.execute(invocation);
        st.execute("ROLLBACK");
      }

      assertThat(blocked).isInstanceOf(Busy.class);
      assertThat(count(store, "SELECT COUNT(*) FROM test_items")).isZero();
      assertThat(count(store, "SELECT COUNT(*) FROM tl_operations")).isZero();
      // The pool's connections are still transactional: a tool that fails after its insert
      // leaves no effect (a connection left by the failed BEGIN in a "no transaction but
      // auto-commit off" state would have committed the insert on its own).
      assertThatThrownBy(
              () ->
                  engine.execute(
                      Invocation.of(
                          ACME,
                          OperationKey.of("op-2"),
                          "create-item",
                          Json.parse("{\"name\":\"explode\"}"))))
          .isInstanceOf(ToolExecutionException.class);
      assertThat(count(store, "SELECT COUNT(*) FROM test_items")).isZero();
      assertThat(count(store, "SELECT COUNT(*) FROM tl_operations")).isZero();
      // And the blocked key stayed free.
      assertThat(engine.execute(invocation)).isInstanceOf(Executed.class);
    }
  }
}
