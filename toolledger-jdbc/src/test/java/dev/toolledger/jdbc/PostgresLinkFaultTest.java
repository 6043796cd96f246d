package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.json.Json;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.StoredResponse;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.migration.Migration;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.testkit.pg.PgFaultPoint;
import dev.toolledger.testkit.pg.PgFaultProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger over a link to PostgreSQL that breaks or stalls ({@link PgFaultProxy} between the
 * store's pool and the server): every caller is answered within a bound, with the ledger's
 * retryable answer or "in progress" where a commit may have happened, never "the tool failed"; a
 * commit whose answer was lost is settled by reading the record; and once the link heals, every
 * retry converges to one effect per key and an identical replay.
 *
 * <p>The bounds are shrunk so that each test takes seconds: claim wait 1 s, statement and
 * idle-in-transaction timeout 2 s, socket timeout 3 s.
 */
class PostgresLinkFaultTest {
  private static final TenantId ACME = TenantId.of("acme");
  private static final Duration CLAIM_WAIT = Duration.ofSeconds(1);
  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(3);

  static final SchemaMigrations MIGRATIONS =
      SchemaMigrations.of(
          "link-faults",
          Migration.portable(
              1,
              "counter and effects",
              "CREATE TABLE link_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
              "INSERT INTO link_counter VALUES (1, 0)",
              "CREATE TABLE link_effects (op_key TEXT NOT NULL)"));

  private PostgresTestDatabase database;
  private PgFaultProxy proxy;
  private JdbcLedgerStore store;

  @BeforeEach
  void open() {
    database = PostgresTestDatabase.create();
    proxy = PgFaultProxy.inFrontOf(database.url());
    store =
        JdbcLedgerStore.postgres(
            PostgresOptions.builder(proxy.route(database.url()))
                .poolSize(4)
                .connectionTimeout(Duration.ofSeconds(1))
                .claimWait(CLAIM_WAIT)
                .statementTimeout(STATEMENT_TIMEOUT)
                .socketTimeout(SOCKET_TIMEOUT)
                .migrations(MIGRATIONS)
                .build());
  }

  @AfterEach
  void close() {
    proxy.heal();
    store.close();
    proxy.close();
    database.close();
  }

  private LedgerEngine engine(EngineConfig.Builder config, Tool tool) {
    return LedgerEngine.builder(store, ToolRegistry.of(tool))
        .config(config.maxWait(CLAIM_WAIT).unlimitedNewOperations().build())
        .build();
  }

  private static ExecutionOutcome call(LedgerEngine engine, String tool, String key) {
    return engine.execute(
        Invocation.of(ACME, OperationKey.of(key), tool, Json.object().put("k", key)));
  }

  private long effects(String key) throws SQLException {
    try (Connection c = database.connect();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM link_effects WHERE op_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private long counter() throws SQLException {
    try (Connection c = database.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT n FROM link_counter WHERE id = 1")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Records its effect and bumps the one shared counter row: every execution takes its lock. */
  static final class BumpTool implements TransactionalTool {
    final AtomicInteger executions = new AtomicInteger();

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("bump", "1")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters)
        throws SQLException {
      executions.incrementAndGet();
      try (PreparedStatement ps =
          context.connection().prepareStatement("INSERT INTO link_effects VALUES (?)")) {
        ps.setString(1, parameters.get("k").asText());
        ps.executeUpdate();
      }
      try (Statement st = context.connection().createStatement();
          ResultSet rs =
              st.executeQuery("UPDATE link_counter SET n = n + 1 WHERE id = 1 RETURNING n")) {
        rs.next();
        return ToolResponse.of(201, Json.object().put("n", rs.getLong(1)));
      }
    }
  }

  @Test
  void aToolWaitingForARowLockThatAStalledTransactionHoldsIsNotToldTheToolFailed()
      throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    // The first call's transaction bumps the counter (holding its row lock); then its link
    // stalls as it sends the record with the COMMIT.
    proxy.stallNext(PgFaultPoint.MID_TRANSACTION, "INSERT INTO tl_operations");
    CompletableFuture<ExecutionOutcome> stalled =
        CompletableFuture.supplyAsync(() -> call(engine, "bump", "k-stalled"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (proxy.armed() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(proxy.stalls()).isEqualTo(1);
    Thread.sleep(300);

    // The second waits for the row lock: with the claim's wait as its lock_timeout it used to
    // fail with 55P03 after 1 s and be told "tool-failed". Now the server ends the silent
    // transaction (idle_in_transaction_session_timeout) and the second goes on.
    ExecutionOutcome second = call(engine, "bump", "k-second");

    assertThat(second).isInstanceOf(Executed.class);
    // The stalled caller heard within its bound that its call may be in progress: its commit
    // was sent and never answered.
    assertThat(stalled.get(10, TimeUnit.SECONDS)).isInstanceOf(InProgress.class);
    proxy.heal();
    // The stalled transaction never committed (the server ended it): its retry executes once.
    ExecutionOutcome retried = call(engine, "bump", "k-stalled");
    assertThat(retried).isInstanceOf(Executed.class);
    assertThat(call(engine, "bump", "k-stalled"))
        .isInstanceOfSatisfying(
            Replayed.class,
            r -> assertThat(r.response()).isEqualTo(((Executed) retried).response()));
    assertThat(effects("k-stalled")).isEqualTo(1);
    assertThat(effects("k-second")).isEqualTo(1);
    assertThat(counter()).isEqualTo(2);
  }

  @Test
  void aToolStatementCutShortByTheStatementTimeoutIsTheLedgersBusyAndNothingHappened()
      throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder().transactionBudget(CLAIM_WAIT), tool);
    try (Connection holder = database.connect()) {
      // Another client holds the row and stays silent (not one of the ledger's sessions).
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute("UPDATE link_counter SET n = n WHERE id = 1");
      }
      long started = System.nanoTime();
      ExecutionOutcome outcome = call(engine, "bump", "k");
      Duration waited = Duration.ofNanos(System.nanoTime() - started);

      assertThat(outcome).isInstanceOf(Busy.class);
      assertThat(waited).isLessThan(STATEMENT_TIMEOUT.plusSeconds(2));
      assertThat(effects("k")).isZero();
      holder.rollback();
    }
    assertThat(call(engine, "bump", "k")).isInstanceOf(Executed.class);
    assertThat(effects("k")).isEqualTo(1);
  }

  @Test
  void aStalledLinkIsAnsweredBusyWithinTheSocketTimeoutAndConvergesOnceHealed() throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    assertThat(call(engine, "bump", "k-before")).isInstanceOf(Executed.class);
    proxy.stall();

    long started = System.nanoTime();
    ExecutionOutcome outcome = call(engine, "bump", "k");
    Duration waited = Duration.ofNanos(System.nanoTime() - started);

    assertThat(outcome).isInstanceOf(Busy.class);
    assertThat(waited).isLessThan(SOCKET_TIMEOUT.plusSeconds(2));
    proxy.heal();
    ExecutionOutcome executed = call(engine, "bump", "k");
    assertThat(executed).isInstanceOf(Executed.class);
    assertThat(call(engine, "bump", "k"))
        .isInstanceOfSatisfying(
            Replayed.class,
            r -> assertThat(r.response()).isEqualTo(((Executed) executed).response()));
    assertThat(effects("k")).isEqualTo(1);
  }

  @Test
  void aCommitWhoseAnswerWasLostIsSettledByReadingTheRecord() throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT, "INSERT INTO tl_operations");

    ExecutionOutcome outcome = call(engine, "bump", "k");

    // The commit happened; the engine's retry read the record under the key's lock and
    // replayed it instead of executing again.
    assertThat(proxy.resets()).isEqualTo(1);
    assertThat(outcome).isInstanceOf(Replayed.class);
    assertThat(tool.executions).hasValue(1);
    assertThat(effects("k")).isEqualTo(1);
    StoredResponse recorded = ((Replayed) outcome).response();
    assertThat(call(engine, "bump", "k"))
        .isInstanceOfSatisfying(Replayed.class, r -> assertThat(r.response()).isEqualTo(recorded));
  }

  @Test
  void aLostCommitAnswerWithNoRetryLeftIsInProgressNotBusy() throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder().transactionAttempts(1), tool);
    proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT, "INSERT INTO tl_operations");

    assertThat(call(engine, "bump", "k")).isInstanceOf(InProgress.class);

    assertThat(call(engine, "bump", "k")).isInstanceOf(Replayed.class);
    assertThat(effects("k")).isEqualTo(1);
  }

  @Test
  void aLinkResetMidTransactionRollsBackAndTheRetryExecutesOnce() throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    proxy.resetNext(PgFaultPoint.MID_TRANSACTION, "UPDATE link_counter");

    ExecutionOutcome outcome = call(engine, "bump", "k");

    assertThat(proxy.resets()).isEqualTo(1);
    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(tool.executions).hasValue(2);
    assertThat(effects("k")).isEqualTo(1);
    assertThat(counter()).isEqualTo(1);
  }

  @Test
  void refusedConnectionsAreBusyAndHealingConverges() throws Exception {
    BumpTool tool = new BumpTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    proxy.refuseNew(true);
    proxy.resetAll();

    ExecutionOutcome outcome = call(engine, "bump", "k");

    assertThat(outcome).isInstanceOf(Busy.class);
    assertThat(proxy.refused()).isPositive();
    proxy.heal();
    assertThat(call(engine, "bump", "k")).isInstanceOf(Executed.class);
    assertThat(effects("k")).isEqualTo(1);
  }

  // ------------------------------------------------------------------ external effects

  /** An idempotent downstream with a short lease; counts every call per downstream key. */
  static final class SendTool implements ExternalTool {
    final Map<String, AtomicInteger> performs = new ConcurrentHashMap<>();
    volatile Runnable duringPerform = () -> {};
    volatile boolean notDone;

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("send", "1")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public EffectResult perform(EffectContext context, JsonNode parameters) {
      int n =
          performs
              .computeIfAbsent(context.downstreamKey(), k -> new AtomicInteger())
              .incrementAndGet();
      duringPerform.run();
      if (notDone) {
        return EffectResult.notDone("the downstream refused before acting");
      }
      return EffectResult.done(ToolResponse.of(201, Json.object().put("sent", 1)));
    }

    @Override
    public Duration lease() {
      return Duration.ofSeconds(1);
    }

    @Override
    public boolean idempotentDownstream() {
      return true;
    }
  }

  @Test
  void anExternalEffectWhoseClaimAndOutcomeCommitAnswersWereLostHappensOnceAndReplays() {
    SendTool tool = new SendTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    // The claim's COMMIT (sent with its history row) commits and its answer is lost; the retry
    // finds its own claim. Then the outcome's COMMIT meets the same fault.
    proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT, "INSERT INTO tl_operation_history");
    tool.duringPerform =
        () -> proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT, "INSERT INTO tl_operation_history");

    ExecutionOutcome outcome = call(engine, "send", "k");

    assertThat(proxy.resets()).isEqualTo(2);
    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(tool.performs.values()).singleElement().extracting(AtomicInteger::get).isEqualTo(1);
    StoredResponse recorded = ((Executed) outcome).response();
    tool.duringPerform = () -> {};
    assertThat(call(engine, "send", "k"))
        .isInstanceOfSatisfying(Replayed.class, r -> assertThat(r.response()).isEqualTo(recorded));
    List<HistoryEntry> history = store.history(ACME, OperationKey.of("k"));
    assertThat(history).hasSize(2);
    assertThat(history).noneMatch(h -> h.cause().contains("was refused"));
  }

  @Test
  void aReleaseWhoseCommitAnswerWasLostLeavesTheKeyFreeAndSaysNothingHappened() {
    SendTool tool = new SendTool();
    tool.notDone = true;
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    // The claim commits normally; the release's COMMIT commits and its answer is lost.
    tool.duringPerform =
        () -> proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT, "INSERT INTO tl_operation_history");

    ExecutionOutcome outcome = call(engine, "send", "k");

    assertThat(proxy.resets()).isEqualTo(1);
    assertThat(outcome).isInstanceOf(ExecutionOutcome.ToolUnavailable.class);
    assertThat(store.find(ACME, OperationKey.of("k"))).isEmpty();
    assertThat(store.history(ACME, OperationKey.of("k")))
        .extracting(HistoryEntry::cause)
        .noneMatch(cause -> cause.contains("was refused"));
    tool.notDone = false;
    tool.duringPerform = () -> {};
    assertThat(call(engine, "send", "k")).isInstanceOf(Executed.class);
  }

  @Test
  void anExternalClaimStalledAtItsCommitIsInProgressAndItsRetryConvergesOnceHealed()
      throws Exception {
    SendTool tool = new SendTool();
    LedgerEngine engine = engine(EngineConfig.builder(), tool);
    proxy.stallNext(PgFaultPoint.AFTER_COMMIT_SENT, "INSERT INTO tl_operation_history");

    long started = System.nanoTime();
    ExecutionOutcome outcome = call(engine, "send", "k");
    Duration waited = Duration.ofNanos(System.nanoTime() - started);

    // The claim committed (the proxy held only its answer): "busy" would be a lie.
    assertThat(outcome).isInstanceOf(InProgress.class);
    assertThat(waited).isLessThan(SOCKET_TIMEOUT.plusSeconds(2));
    assertThat(tool.performs).isEmpty();
    proxy.heal();
    // The claim is held by the silent attempt until its lease ends; then recovery settles it (the
    // downstream is idempotent by its key: it performs under that key) and the retry replays.
    assertThat(call(engine, "send", "k")).isInstanceOf(InProgress.class);
    Thread.sleep(1_200);
    assertThat(engine.recoverExpiredClaims(10).examined()).isEqualTo(1);
    assertThat(call(engine, "send", "k"))
        .isInstanceOfSatisfying(
            Replayed.class, r -> assertThat(r.response().body()).isEqualTo("{\"sent\":1}"));
    assertThat(tool.performs.values()).singleElement().extracting(AtomicInteger::get).isEqualTo(1);
  }
}
