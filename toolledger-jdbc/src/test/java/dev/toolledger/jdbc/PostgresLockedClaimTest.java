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
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.engine.ExecutionOutcome.RateLimited;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * On PostgreSQL a transactional tool's claim takes the key's advisory lock and reads the key in its
 * transaction; a new key's record is inserted once, complete, with the COMMIT. What that must keep:
 * one effect per key however many duplicates arrive at once, no commit of an effect without its
 * record, and replays that write nothing.
 */
class PostgresLockedClaimTest {
  private static final TenantId ACME = TenantId.of("acme");
  private static final int THREADS = 16;

  private PostgresTestDatabase database;
  private JdbcLedgerStore store;
  private ExecutorService threads;

  @BeforeEach
  void open() {
    database = PostgresTestDatabase.create();
    store =
        JdbcLedgerStore.postgres(
            database.options().poolSize(THREADS + 2).migrations(ItemsTool.MIGRATIONS).build());
    threads = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void close() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
    store.close();
    database.close();
  }

  private static Invocation create(String key, String name) {
    return new Invocation(
        ACME,
        OperationKey.of(key),
        "create-item",
        Json.parse("{\"name\":\"" + name + "\"}"),
        Optional.empty());
  }

  private LedgerEngine engine(TransactionalTool tool) {
    return LedgerEngine.builder(store, ToolRegistry.of(tool))
        .config(
            EngineConfig.builder().maxWait(Duration.ofSeconds(30)).unlimitedNewOperations().build())
        .build();
  }

  private long items(String name) throws SQLException {
    try (Connection c = database.connect();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM test_items WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void concurrentDuplicatesOfOneKeyRunTheEffectOnceAndAllOthersReplayIt() throws Exception {
    ItemsTool tool = new ItemsTool();
    LedgerEngine engine = engine(tool);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<ExecutionOutcome>> calls = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      String key = "dup-" + round;
      calls.clear();
      for (int i = 0; i < THREADS; i++) {
        calls.add(
            threads.submit(
                () -> {
                  go.await();
                  return engine.execute(create(key, key));
                }));
      }
      go.countDown();
      int executed = 0;
      int replayed = 0;
      Object response = null;
      for (Future<ExecutionOutcome> call : calls) {
        ExecutionOutcome outcome = call.get(60, TimeUnit.SECONDS);
        if (outcome instanceof Executed e) {
          executed++;
          response = e.record().response();
        } else {
          assertThat(outcome).isInstanceOf(Replayed.class);
          replayed++;
        }
      }
      assertThat(executed).as("round %d", round).isEqualTo(1);
      assertThat(replayed).isEqualTo(THREADS - 1);
      assertThat(items(key)).isEqualTo(1);
      for (Future<ExecutionOutcome> call : calls) {
        if (call.get() instanceof Replayed r) {
          assertThat(r.record().response()).isEqualTo(response);
        }
      }
    }
    assertThat(tool.executions).hasValue(5);
  }

  /**
   * Writes a record for the key it is running under from another connection, as a path that does
   * not wait for the key's lock would: the completed record's insert then meets the primary key.
   */
  private final class IntruderTool implements TransactionalTool {
    final ItemsTool items = new ItemsTool();
    final AtomicInteger executions = new AtomicInteger();

    @Override
    public ToolDescriptor descriptor() {
      return items.descriptor();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
      if (executions.incrementAndGet() == 1) {
        try (Connection other = store.dataSource().getConnection();
            PreparedStatement ps =
                other.prepareStatement(
                    "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint,"
                        + " state, response_status, response_body, created_at, completed_at,"
                        + " expires_at) VALUES (?, ?, 'other-tool', '1', ?, 'COMPLETED', 200,"
                        + " '{}', 0, 0, ?)")) {
          ps.setString(1, context.tenant().value());
          ps.setString(2, "k");
          ps.setString(3, "cd".repeat(32));
          ps.setLong(4, Instant.now().plus(Duration.ofDays(1)).toEpochMilli());
          ps.executeUpdate();
        }
      }
      return items.execute(context, parameters);
    }
  }

  @Test
  void aRecordCreatedBesideTheLockRollsTheEffectBackAndTheCallSettlesAgainstIt() throws Exception {
    IntruderTool tool = new IntruderTool();

    ExecutionOutcome outcome = engine(tool).execute(create("k", "intruded"));

    // The completed insert met the primary key: the transaction, effect included, was rolled
    // back, and the retry found the other record under the key's lock.
    assertThat(outcome).isInstanceOf(KeyReused.class);
    assertThat(((KeyReused) outcome).recordedTool()).isEqualTo("other-tool");
    assertThat(items("intruded")).isZero();
    assertThat(tool.executions).hasValue(1);
    assertThat(store.find(ACME, OperationKey.of("k")).orElseThrow().intent().orElseThrow().tool())
        .isEqualTo("other-tool");
  }

  @Test
  void aClaimThatFindsTheKeyRecordedGetsNoTransactionIdAndIsNotAWriteTransaction()
      throws Exception {
    ItemsTool tool = new ItemsTool();
    LedgerEngine recorder = engine(tool);
    for (int i = 0; i < 50; i++) {
      assertThat(recorder.execute(create("r-" + i, "replayed"))).isInstanceOf(Executed.class);
    }
    assertThat(recorder.execute(create("r", "replayed"))).isInstanceOf(Executed.class);

    // Another node never saw these keys: each replay is decided by its transaction's claim.
    LedgerEngine otherNode = engine(tool);
    long writesBefore = store.writeTransactions();
    long decidedBefore = store.decidedInTransaction();
    for (int i = 0; i < 50; i++) {
      assertThat(otherNode.execute(create("r-" + i, "replayed"))).isInstanceOf(Replayed.class);
    }
    assertThat(store.decidedInTransaction()).isEqualTo(decidedBefore + 50);
    assertThat(store.writeTransactions()).isEqualTo(writesBefore);
    assertThat(tool.executions).hasValue(51);

    // The claim's own transaction, looked at from inside after its read: no transaction id.
    NewOperation again =
        new NewOperation(
            ACME,
            OperationKey.of("r"),
            new OperationIntent("create-item", "1", new Fingerprint("ab".repeat(32))),
            Instant.now());
    String[] xid = new String[1];
    ClaimResult claim =
        store.inTransaction(
            tx -> {
              ClaimResult result = tx.claim(again, Duration.ofSeconds(5));
              try (Statement st = tx.connection().createStatement();
                  ResultSet rs =
                      st.executeQuery(
                          "SELECT CAST(pg_current_xact_id_if_assigned() AS TEXT),"
                              + " (SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'"
                              + " AND pid = pg_backend_pid())")) {
                rs.next();
                xid[0] = rs.getString(1);
                // The key's lock is held: the read was made under it.
                assertThat(rs.getLong(2)).isEqualTo(1);
              }
              return result;
            });
    assertThat(claim).isInstanceOf(ClaimResult.Existing.class);
    assertThat(((ClaimResult.Existing) claim).record().state()).isEqualTo(OperationState.COMPLETED);
    assertThat(xid[0]).isNull();
  }

  @Test
  void aNewKeyIsWrittenOnceCompleteNotClaimedThenUpdated() throws Exception {
    try (Connection c = database.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE test_row_writes (op TEXT NOT NULL, state TEXT NOT NULL)");
      st.execute(
          "CREATE FUNCTION test_note_row_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
              + " INSERT INTO test_row_writes VALUES (TG_OP, NEW.state); RETURN NEW; END $$");
      st.execute(
          "CREATE TRIGGER test_row_writes AFTER INSERT OR UPDATE ON tl_operations"
              + " FOR EACH ROW EXECUTE FUNCTION test_note_row_write()");
    }
    LedgerEngine engine = engine(new ItemsTool());

    assertThat(engine.execute(create("once", "once"))).isInstanceOf(Executed.class);

    try (Connection c = database.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT op || ' ' || state FROM test_row_writes")) {
      List<String> writes = new ArrayList<>();
      while (rs.next()) {
        writes.add(rs.getString(1));
      }
      assertThat(writes).containsExactly("INSERT COMPLETED");
    }
  }

  @Test
  void aRetryOfAKeyThisNodeRecordedIsReadFirstAndAnyOtherIsDecidedInTheTransaction()
      throws Exception {
    ItemsTool tool = new ItemsTool();
    LedgerEngine recorder = engine(tool);
    LedgerEngine otherNode = engine(tool);
    assertThat(recorder.execute(create("n", "node"))).isInstanceOf(Executed.class);
    long decided = store.decidedInTransaction();

    assertThat(recorder.execute(create("n", "node"))).isInstanceOf(Replayed.class);
    assertThat(store.decidedInTransaction()).isEqualTo(decided);

    assertThat(otherNode.execute(create("n", "node"))).isInstanceOf(Replayed.class);
    assertThat(store.decidedInTransaction()).isEqualTo(decided + 1);
    // Replayed once, the key is read first on that node too.
    assertThat(otherNode.execute(create("n", "node"))).isInstanceOf(Replayed.class);
    assertThat(store.decidedInTransaction()).isEqualTo(decided + 1);
    assertThat(tool.executions).hasValue(1);
  }

  @Test
  void aKeyRememberedByThisNodeButNoLongerRecordedIsExecutedByTheTransaction() throws Exception {
    ItemsTool tool = new ItemsTool();
    LedgerEngine engine = engine(tool);
    assertThat(engine.execute(create("gone", "gone"))).isInstanceOf(Executed.class);
    try (Connection c = database.connect();
        Statement st = c.createStatement()) {
      // As if the record had been released: the hint is stale, the transaction decides.
      st.executeUpdate("DELETE FROM tl_operations WHERE op_key = 'gone'");
    }

    assertThat(engine.execute(create("gone", "gone"))).isInstanceOf(Executed.class);
    assertThat(tool.executions).hasValue(2);
    assertThat(items("gone")).isEqualTo(2);
  }

  @Test
  void aLimitSharedInTheDatabaseKeepsTheReadBeforeTheTransaction() throws Exception {
    ItemsTool tool = new ItemsTool();
    LedgerEngine recorder = engine(tool);
    // A shared limit is a statement of its own, taken by new operations only, so the engine must
    // know that the key is new before it takes it.
    LedgerEngine limited =
        LedgerEngine.builder(store, ToolRegistry.of(tool))
            .config(EngineConfig.builder().maxWait(Duration.ofSeconds(30)).build())
            .sharedRateBuckets(store.sharedRateBuckets())
            .build();
    assertThat(recorder.execute(create("lim", "lim"))).isInstanceOf(Executed.class);
    long decided = store.decidedInTransaction();
    long writes = store.writeTransactions();

    assertThat(limited.execute(create("lim", "lim"))).isInstanceOf(Replayed.class);

    assertThat(store.decidedInTransaction()).isEqualTo(decided);
    assertThat(store.writeTransactions()).isEqualTo(writes);
  }

  @Test
  void aLimitKeptInMemoryIsTakenInsideTheTransactionByNewKeysOnlyAndARefusalWritesNothing()
      throws Exception {
    ItemsTool tool = new ItemsTool();
    // One new operation an hour: the second new key is refused whatever the machine's speed.
    LedgerEngine limited =
        LedgerEngine.builder(store, ToolRegistry.of(tool))
            .config(
                EngineConfig.builder()
                    .maxWait(Duration.ofSeconds(30))
                    .newOperationLimit(new RateLimit(1, Duration.ofHours(1)))
                    .build())
            .build();
    long decided = store.decidedInTransaction();

    assertThat(limited.execute(create("mem-a", "mem-a"))).isInstanceOf(Executed.class);
    ExecutionOutcome refused = limited.execute(create("mem-b", "mem-b"));

    assertThat(refused).isInstanceOf(RateLimited.class);
    assertThat(items("mem-b")).isZero();
    assertThat(store.find(ACME, OperationKey.of("mem-b"))).isEmpty();
    assertThat(tool.executions).hasValue(1);
    // A replay takes no permit: it is answered although the bucket is empty, from a node that did
    // not record the key (no hint), so from the transaction's own read.
    LedgerEngine otherNode =
        LedgerEngine.builder(store, ToolRegistry.of(tool))
            .config(
                EngineConfig.builder()
                    .maxWait(Duration.ofSeconds(30))
                    .newOperationLimit(new RateLimit(1, Duration.ofHours(1)))
                    .build())
            .build();
    assertThat(otherNode.execute(create("mem-c", "mem-c"))).isInstanceOf(Executed.class);
    assertThat(otherNode.execute(create("mem-a", "mem-a"))).isInstanceOf(Replayed.class);
    assertThat(store.decidedInTransaction()).isEqualTo(decided + 1);
    assertThat(tool.executions).hasValue(2);
  }
}
