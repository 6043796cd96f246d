package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite's group commit: writers that queue up while a transaction commits share the next commit,
 * each in a savepoint of its own; a piece of work that fails is rolled back alone.
 */
class SqliteGroupCommitTest {
  @TempDir Path dir;
  JdbcLedgerStore store;
  ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void open() {
    store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(dir.resolve("ledger.db"))
                .migrations(ItemsTool.MIGRATIONS)
                .build());
  }

  @AfterEach
  void close() {
    threads.shutdownNow();
    store.close();
  }

  private long insert(java.sql.Connection connection, String name) throws Exception {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "INSERT INTO test_items (tenant, name) VALUES ('t', ?) RETURNING id")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private long count(String sql) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void awaitQueued(int writers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (store.queuedWriters() < writers) {
      assertThat(System.nanoTime()).as("writers queued").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void writersThatQueueDuringACommitShareTheNextOne() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    long commitsBefore = store.commits();
    Future<Long> first =
        threads.submit(
            () ->
                store.inTransaction(
                    tx -> {
                      inside.countDown();
                      awaitQueued(10);
                      return insert(tx.connection(), "first");
                    }));
    assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
    List<Future<Long>> others = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String name = "other-" + i;
      others.add(threads.submit(() -> store.inTransaction(tx -> insert(tx.connection(), name))));
    }

    first.get(30, TimeUnit.SECONDS);
    for (Future<Long> other : others) {
      other.get(30, TimeUnit.SECONDS);
    }

    assertThat(count("SELECT COUNT(*) FROM test_items")).isEqualTo(11);
    assertThat(store.commits() - commitsBefore).as("commits for 11 transactions").isEqualTo(2);
  }

  @Test
  void aFailingMemberOfAGroupIsRolledBackAloneAndTheOthersCommit() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    Future<Long> first =
        threads.submit(
            () ->
                store.inTransaction(
                    tx -> {
                      inside.countDown();
                      awaitQueued(3);
                      return insert(tx.connection(), "first");
                    }));
    assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
    Future<Long> before =
        threads.submit(() -> store.inTransaction(tx -> insert(tx.connection(), "ok-1")));
    awaitQueued(1);
    Future<Long> failing =
        threads.submit(
            () ->
                store.inTransaction(
                    tx -> {
                      insert(tx.connection(), "rolled-back");
                      throw new IllegalStateException("this member fails after writing");
                    }));
    awaitQueued(2);
    Future<Long> after =
        threads.submit(() -> store.inTransaction(tx -> insert(tx.connection(), "ok-2")));

    first.get(30, TimeUnit.SECONDS);
    before.get(30, TimeUnit.SECONDS);
    after.get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> failing.get(30, TimeUnit.SECONDS))
        .hasRootCauseMessage("this member fails after writing");
    assertThat(count("SELECT COUNT(*) FROM test_items WHERE name = 'rolled-back'")).isZero();
    assertThat(count("SELECT COUNT(*) FROM test_items")).isEqualTo(3);
  }

  @Test
  void engineOperationsInOneGroupStayExactlyOncePerKey() throws Exception {
    LedgerEngine engine = LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool())).build();
    int callers = 24;
    List<Future<ExecutionOutcome>> outcomes = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < callers; i++) {
      String key = "k-" + (i % 6);
      outcomes.add(
          threads.submit(
              () -> {
                go.await();
                return engine.execute(
                    Invocation.of(
                        TenantId.of("acme"),
                        OperationKey.of(key),
                        "create-item",
                        Json.parse("{\"name\":\"" + key + "\"}")));
              }));
    }
    go.countDown();
    int executed = 0;
    for (Future<ExecutionOutcome> outcome : outcomes) {
      ExecutionOutcome o = outcome.get(60, TimeUnit.SECONDS);
      assertThat(o)
          .isInstanceOfAny(ExecutionOutcome.Executed.class, ExecutionOutcome.Replayed.class);
      if (o instanceof ExecutionOutcome.Executed) {
        executed++;
      }
    }
    assertThat(executed).isEqualTo(6);
    assertThat(count("SELECT COUNT(*) FROM test_items")).isEqualTo(6);
    assertThat(count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(6);
  }
}
