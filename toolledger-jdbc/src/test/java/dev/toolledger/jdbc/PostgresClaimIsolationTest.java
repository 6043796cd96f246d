package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.json.Json;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationState;
import dev.toolledger.core.operation.StoredResponse;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two transactions claiming one key on PostgreSQL, ordered with latches: the second claimer waits
 * for the first to end and then sees its outcome, takes the key over, or gives up after its wait.
 * "Waits" is observed on the server (pg_blocking_pids), not inferred from elapsed time.
 */
class PostgresClaimIsolationTest {
  private static final TenantId ACME = TenantId.of("acme");
  private static final Duration LONG = Duration.ofSeconds(30);

  private PostgresTestDatabase database;
  private JdbcLedgerStore store;
  private ExecutorService threads;

  @BeforeEach
  void open() {
    database = PostgresTestDatabase.create();
    // Two connections: the first claimer holds one, so the second claimer's is the other one,
    // which the tests borrow afterwards to see what it was returned to the pool with.
    store =
        JdbcLedgerStore.postgres(
            database.options().poolSize(2).migrations(ItemsTool.MIGRATIONS).build());
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void close() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
    store.close();
    database.close();
  }

  private static NewOperation operation(String key) {
    return new NewOperation(
        ACME,
        OperationKey.of(key),
        new OperationIntent("create-item", "1", new Fingerprint("ab".repeat(32))),
        Instant.now());
  }

  /** The first claimer: claims, records an outcome, then holds its transaction open. */
  private final class FirstClaimer {
    final CountDownLatch claimed = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger pid = new AtomicInteger();
    final StoredResponse response = new StoredResponse(201, "{\"first\":true}");
    Future<ClaimResult> result;

    FirstClaimer start(String key, boolean commit) throws InterruptedException {
      result =
          threads.submit(
              () ->
                  store.inTransaction(
                      tx -> {
                        ClaimResult claim = tx.claim(operation(key), Duration.ZERO);
                        tx.complete(
                            ACME, OperationKey.of(key), response, Instant.now(), Instant.now());
                        pid.set(backendPid(tx));
                        claimed.countDown();
                        assertThat(release.await(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
                        if (!commit) {
                          throw new FirstAborts();
                        }
                        return claim;
                      }));
      assertThat(claimed.await(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
      return this;
    }
  }

  private static final class FirstAborts extends RuntimeException {
    FirstAborts() {
      super("the first claimer aborts its transaction");
    }
  }

  private static int backendPid(LedgerTransaction tx) throws SQLException {
    return backendPid(tx.connection());
  }

  private static int backendPid(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Returns once some backend is waiting for a lock held by the backend {@code pid}. */
  private void awaitSomeoneBlockedBy(int pid) throws Exception {
    long deadline = System.nanoTime() + LONG.toNanos();
    try (Connection admin = database.connect();
        PreparedStatement ps =
            admin.prepareStatement(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
      ps.setInt(1, pid);
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        Thread.sleep(5);
      }
    }
    throw new AssertionError("no transaction started waiting for backend " + pid);
  }

  private long operations() throws SQLException {
    try (Connection c = database.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM tl_operations")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Future<ClaimResult> claimInAnotherThread(String key, Duration maxWait) {
    Callable<ClaimResult> second =
        () ->
            store.inTransaction(
                tx -> {
                  ClaimResult claim = tx.claim(operation(key), maxWait);
                  if (claim instanceof ClaimResult.Claimed) {
                    tx.complete(
                        ACME,
                        OperationKey.of(key),
                        new StoredResponse(201, "{\"second\":true}"),
                        Instant.now(),
                        Instant.now());
                  }
                  return claim;
                });
    return threads.submit(second);
  }

  @Test
  void secondClaimerWaitsWhileTheFirstIsOpenAndThenSeesItsCommittedOutcome() throws Exception {
    FirstClaimer first = new FirstClaimer().start("k", true);

    Future<ClaimResult> second = claimInAnotherThread("k", LONG);
    awaitSomeoneBlockedBy(first.pid.get());
    assertThat(second).isNotDone();
    first.release.countDown();

    assertThat(first.result.get(30, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Claimed.class);
    ClaimResult seen = second.get(30, TimeUnit.SECONDS);
    assertThat(seen).isInstanceOf(ClaimResult.Existing.class);
    ClaimResult.Existing existing = (ClaimResult.Existing) seen;
    assertThat(existing.record().state()).isEqualTo(OperationState.COMPLETED);
    assertThat(existing.record().response()).contains(first.response);
    assertThat(operations()).isEqualTo(1);
  }

  @Test
  void secondClaimerTakesTheKeyWhenTheFirstAborts() throws Exception {
    FirstClaimer first = new FirstClaimer().start("k", false);

    Future<ClaimResult> second = claimInAnotherThread("k", LONG);
    awaitSomeoneBlockedBy(first.pid.get());
    assertThat(second).isNotDone();
    first.release.countDown();

    assertThatThrownBy(() -> first.result.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(FirstAborts.class);
    assertThat(second.get(30, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(store.find(ACME, OperationKey.of("k")).orElseThrow().response())
        .contains(new StoredResponse(201, "{\"second\":true}"));
    assertThat(operations()).isEqualTo(1);
  }

  @Test
  void secondClaimerGivesUpAfterItsMaxWaitAndLeavesNothingBehind() throws Exception {
    FirstClaimer first = new FirstClaimer().start("k", false);
    AtomicInteger secondPid = new AtomicInteger();

    ClaimResult seen =
        threads
            .submit(
                () ->
                    store.inTransaction(
                        tx -> {
                          secondPid.set(backendPid(tx));
                          return tx.claim(operation("k"), Duration.ofMillis(200));
                        }))
            .get(30, TimeUnit.SECONDS);

    // The first transaction is still open: the second gave up on its own wait.
    assertThat(first.result).isNotDone();
    assertThat(seen).isInstanceOf(ClaimResult.Contended.class);
    try (Connection admin = database.connect();
        PreparedStatement ps =
            admin.prepareStatement("SELECT state FROM pg_stat_activity WHERE pid = ?")) {
      ps.setInt(1, secondPid.get());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("idle"); // not "idle in transaction (aborted)"
      }
    }
    // The first claimer holds the pool's other connection, so this is the second's.
    try (Connection pooled = store.dataSource().getConnection();
        Statement st = pooled.createStatement()) {
      assertThat(backendPid(pooled)).isEqualTo(secondPid.get());
      assertThat(pooled.getAutoCommit()).isTrue();
      try (ResultSet rs = st.executeQuery("SHOW lock_timeout")) {
        rs.next();
        // The database's setting (none), not the 200 ms this one claim asked for.
        assertThat(rs.getString(1)).isEqualTo("0");
      }
    }

    first.release.countDown();
    assertThatThrownBy(() -> first.result.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(FirstAborts.class);
    assertThat(operations()).isZero();
    assertThat(claimInAnotherThread("k", LONG).get(30, TimeUnit.SECONDS))
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void zeroWaitGivesUpAtOnceInsteadOfWaitingForever() throws Exception {
    // PostgreSQL reads lock_timeout = 0 as "no timeout"; a zero wait must not become that.
    FirstClaimer first = new FirstClaimer().start("k", true);

    ClaimResult seen = claimInAnotherThread("k", Duration.ZERO).get(30, TimeUnit.SECONDS);

    assertThat(first.result).isNotDone();
    assertThat(seen).isInstanceOf(ClaimResult.Contended.class);
    first.release.countDown();
    assertThat(first.result.get(30, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void claimedTransactionGivesTheToolsStatementsNoLockTimeoutOfTheClaims() throws Exception {
    String inside =
        store.inTransaction(
            tx -> {
              tx.claim(operation("k"), Duration.ofMillis(200));
              try (Statement st = tx.connection().createStatement();
                  ResultSet rs = st.executeQuery("SHOW lock_timeout")) {
                rs.next();
                return rs.getString(1);
              }
            });

    // The claim's wait bounds the key's lock alone; the tool's statements get the database's
    // lock_timeout (none here), so a row lock they wait for is bounded by the statement timeout.
    assertThat(inside).isEqualTo("0");
  }

  // ------------------------------------------------------------------ through the engine

  /** Inserts an item; its first execution waits inside its transaction until released. */
  static final class GatedTool implements TransactionalTool {
    final CountDownLatch inside = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger executions = new AtomicInteger();
    final AtomicInteger firstPid = new AtomicInteger();

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("gated", "1")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
      int execution = executions.incrementAndGet();
      long id;
      try (PreparedStatement ps =
          context
              .connection()
              .prepareStatement(
                  "INSERT INTO test_items (tenant, name) VALUES (?, 'gated') RETURNING id")) {
        ps.setString(1, context.tenant().value());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          id = rs.getLong(1);
        }
      }
      if (execution == 1) {
        firstPid.set(backendPid(context.connection()));
        inside.countDown();
        assertThat(release.await(LONG.toSeconds(), TimeUnit.SECONDS)).isTrue();
      }
      return ToolResponse.of(201, Json.object().put("id", id));
    }
  }

  private ExecutionOutcome callGated(LedgerEngine engine, Optional<Duration> wait) {
    return engine.execute(
        new Invocation(ACME, OperationKey.of("g"), "gated", Json.parse("{}"), wait));
  }

  @Test
  void engineReplaysToTheWaitingDuplicateOnceTheFirstExecutionCommits() throws Exception {
    GatedTool tool = new GatedTool();
    LedgerEngine engine =
        LedgerEngine.builder(store, ToolRegistry.of(tool))
            .config(EngineConfig.builder().maxWait(LONG).build())
            .build();

    Future<ExecutionOutcome> first = threads.submit(() -> callGated(engine, Optional.empty()));
    assertThat(tool.inside.await(30, TimeUnit.SECONDS)).isTrue();
    Future<ExecutionOutcome> duplicate = threads.submit(() -> callGated(engine, Optional.empty()));
    awaitSomeoneBlockedBy(tool.firstPid.get());
    tool.release.countDown();

    ExecutionOutcome executed = first.get(30, TimeUnit.SECONDS);
    ExecutionOutcome replayed = duplicate.get(30, TimeUnit.SECONDS);
    assertThat(executed).isInstanceOf(Executed.class);
    assertThat(replayed).isInstanceOf(Replayed.class);
    assertThat(((Replayed) replayed).response()).isEqualTo(((Executed) executed).response());
    assertThat(tool.executions).hasValue(1);
  }

  @Test
  void engineAnswersInProgressWhenTheFirstExecutionOutlastsTheCallersWait() throws Exception {
    GatedTool tool = new GatedTool();
    LedgerEngine engine =
        LedgerEngine.builder(store, ToolRegistry.of(tool))
            .config(EngineConfig.builder().maxWait(LONG).build())
            .build();

    Future<ExecutionOutcome> first = threads.submit(() -> callGated(engine, Optional.empty()));
    assertThat(tool.inside.await(30, TimeUnit.SECONDS)).isTrue();
    ExecutionOutcome impatient = callGated(engine, Optional.of(Duration.ofMillis(200)));

    assertThat(first).isNotDone();
    assertThat(impatient).isInstanceOf(InProgress.class);
    tool.release.countDown();
    assertThat(first.get(30, TimeUnit.SECONDS)).isInstanceOf(Executed.class);
    assertThat(tool.executions).hasValue(1);
    assertThat(operations()).isEqualTo(1);
    assertThat(callGated(engine, Optional.empty())).isInstanceOf(Replayed.class);
  }
}
