package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's retry on errors that PostgreSQL really raises: a deadlock (40P01) between the tool
 * and another connection, and the tool's backend terminated mid-transaction (57P01 / class 08).
 * Nothing here throws a made-up exception.
 */
class PostgresTransientFailureTest {
  private static final TenantId ACME = TenantId.of("acme");

  private PostgresTestDatabase database;
  private JdbcLedgerStore store;
  private ExecutorService partners;

  @BeforeEach
  void open() throws SQLException {
    database = PostgresTestDatabase.create();
    // The deadlocking tool sits idle in its transaction while it waits for its partner thread;
    // on a loaded machine that can outlast the default idle-in-transaction bound (10 s), which is
    // not what these tests are about.
    store =
        JdbcLedgerStore.postgres(
            database
                .options()
                .statementTimeout(java.time.Duration.ofSeconds(60))
                .migrations(ItemsTool.MIGRATIONS)
                .build());
    try (Connection c = database.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE test_locks (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
      st.execute("INSERT INTO test_locks VALUES (1, 0), (2, 0)");
    }
    partners = Executors.newCachedThreadPool();
  }

  @AfterEach
  void close() throws InterruptedException {
    partners.shutdownNow();
    partners.awaitTermination(30, TimeUnit.SECONDS);
    store.close();
    database.close();
  }

  private LedgerEngine engine(TransactionalTool tool, int attempts) {
    return LedgerEngine.builder(store, ToolRegistry.of(tool))
        .config(
            EngineConfig.builder()
                .transactionAttempts(attempts)
                .transactionBackoff(Duration.ZERO, Duration.ZERO)
                .build())
        .build();
  }

  private static ExecutionOutcome call(LedgerEngine engine, String tool) {
    return engine.execute(Invocation.of(ACME, OperationKey.of("op-1"), tool, Json.parse("{}")));
  }

  private long count(String sql) throws SQLException {
    try (Connection c = database.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void run(Connection connection, String sql) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(sql);
    }
  }

  private static void insertItem(TransactionContext context, String name) throws SQLException {
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement("INSERT INTO test_items (tenant, name) VALUES (?, ?)")) {
      ps.setString(1, context.tenant().value());
      ps.setString(2, name);
      ps.executeUpdate();
    }
  }

  /**
   * Writes its effect, then, on its first {@code deadlocks} attempts, deadlocks against a partner
   * transaction: the tool locks row 1 and wants row 2, the partner holds row 2 and wants row 1. The
   * tool's deadlock_timeout is far shorter than the partner's, so the server picks the tool's
   * transaction as the victim and the partner commits.
   */
  final class DeadlockingTool implements TransactionalTool {
    final AtomicInteger attempts = new AtomicInteger();
    final List<String> sqlStates = new CopyOnWriteArrayList<>();
    final List<Future<?>> partnerRuns = new CopyOnWriteArrayList<>();
    private final int deadlocks;

    DeadlockingTool(int deadlocks) {
      this.deadlocks = deadlocks;
    }

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("deadlocking", "1")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
      int attempt = attempts.incrementAndGet();
      insertItem(context, "deadlocking");
      if (attempt <= deadlocks) {
        CountDownLatch toolHoldsRow1 = new CountDownLatch(1);
        CountDownLatch partnerHoldsRow2 = new CountDownLatch(1);
        partnerRuns.add(partners.submit(() -> partner(toolHoldsRow1, partnerHoldsRow2)));
        Connection c = context.connection();
        run(c, "SET LOCAL deadlock_timeout = '50ms'"); // needs a superuser, as tests have
        run(c, "UPDATE test_locks SET n = n + 1 WHERE id = 1");
        toolHoldsRow1.countDown();
        assertThat(partnerHoldsRow2.await(30, TimeUnit.SECONDS)).isTrue();
        try {
          run(c, "UPDATE test_locks SET n = n + 1 WHERE id = 2");
        } catch (SQLException e) {
          sqlStates.add(e.getSQLState());
          throw e;
        }
        throw new AssertionError("the tool's transaction was not chosen as the deadlock victim");
      }
      return ToolResponse.of(201, Json.object().put("attempt", attempt));
    }

    private Void partner(CountDownLatch toolHoldsRow1, CountDownLatch partnerHoldsRow2)
        throws Exception {
      try (Connection c = database.connect()) {
        c.setAutoCommit(false);
        run(c, "SET LOCAL deadlock_timeout = '10s'");
        run(c, "UPDATE test_locks SET n = n + 1 WHERE id = 2");
        partnerHoldsRow2.countDown();
        assertThat(toolHoldsRow1.await(30, TimeUnit.SECONDS)).isTrue();
        run(c, "UPDATE test_locks SET n = n + 1 WHERE id = 1"); // waits for the victim's end
        c.commit();
      }
      return null;
    }

    void awaitPartners() throws Exception {
      for (Future<?> run : partnerRuns) {
        run.get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void deadlockedTransactionIsRetriedAndTheToolTakesEffectOnce() throws Exception {
    DeadlockingTool tool = new DeadlockingTool(1);

    ExecutionOutcome outcome = call(engine(tool, 3), "deadlocking");

    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(tool.sqlStates).containsExactly("40P01");
    assertThat(tool.attempts).hasValue(2);
    tool.awaitPartners();
    assertThat(count("SELECT COUNT(*) FROM test_items WHERE name = 'deadlocking'")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(1);
    // Row 1 carries only the partner's increment: the victim's update was rolled back.
    assertThat(count("SELECT n FROM test_locks WHERE id = 1")).isEqualTo(1);
  }

  @Test
  void deadlocksOutlastingTheBudgetAnswerBusyAndLeaveNothing() throws Exception {
    DeadlockingTool tool = new DeadlockingTool(Integer.MAX_VALUE);

    ExecutionOutcome outcome = call(engine(tool, 3), "deadlocking");

    assertThat(outcome).isInstanceOf(Busy.class);
    assertThat(tool.sqlStates).containsExactly("40P01", "40P01", "40P01");
    tool.awaitPartners();
    assertThat(count("SELECT COUNT(*) FROM test_items")).isZero();
    assertThat(count("SELECT COUNT(*) FROM tl_operations")).isZero();
    assertThat(count("SELECT n FROM test_locks WHERE id = 1")).isEqualTo(3);
  }

  /**
   * Writes its effect, then, on its first {@code kills} attempts, has its own backend terminated
   * from another connection (as a failover or an operator would) and returns, so that the engine's
   * recording of the outcome meets the dead connection.
   */
  final class KilledTool implements TransactionalTool {
    final AtomicInteger attempts = new AtomicInteger();
    private final int kills;

    KilledTool(int kills) {
      this.kills = kills;
    }

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("killed", "1")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
      int attempt = attempts.incrementAndGet();
      insertItem(context, "killed");
      if (attempt <= kills) {
        int pid;
        try (Statement st = context.connection().createStatement();
            ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
          rs.next();
          pid = rs.getInt(1);
        }
        terminate(pid);
      }
      return ToolResponse.of(201, Json.object().put("attempt", attempt));
    }

    private void terminate(int pid) throws Exception {
      try (Connection admin = database.connect();
          PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)");
          PreparedStatement gone =
              admin.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ?")) {
        kill.setInt(1, pid);
        try (ResultSet rs = kill.executeQuery()) {
          rs.next();
          assertThat(rs.getBoolean(1)).isTrue();
        }
        gone.setInt(1, pid);
        for (int i = 0; i < 6000; i++) {
          try (ResultSet rs = gone.executeQuery()) {
            rs.next();
            if (rs.getInt(1) == 0) {
              return;
            }
          }
          Thread.sleep(5);
        }
        throw new AssertionError("backend " + pid + " did not exit");
      }
    }
  }

  @Test
  void connectionLostBeforeTheRecordIsRetriedAndTakesEffectOnce() throws Exception {
    KilledTool tool = new KilledTool(1);
    LedgerEngine engine = engine(tool, 3);

    ExecutionOutcome outcome = call(engine, "killed");

    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(tool.attempts).hasValue(2);
    assertThat(count("SELECT COUNT(*) FROM test_items WHERE name = 'killed'")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(1);
    assertThat(call(engine, "killed")).isInstanceOf(Replayed.class);
    assertThat(tool.attempts).hasValue(2);
  }

  @Test
  void connectionLostWithNoAttemptLeftLeavesNeitherEffectNorRecord() throws Exception {
    KilledTool tool = new KilledTool(1);
    LedgerEngine engine = engine(tool, 1);

    ExecutionOutcome outcome = call(engine, "killed");

    assertThat(outcome).isInstanceOf(Busy.class);
    assertThat(count("SELECT COUNT(*) FROM test_items")).isZero();
    assertThat(count("SELECT COUNT(*) FROM tl_operations")).isZero();
    // The key is free and the pool dropped the dead connection: the client's retry executes.
    assertThat(call(engine, "killed")).isInstanceOf(Executed.class);
    assertThat(count("SELECT COUNT(*) FROM test_items")).isEqualTo(1);
  }
}
