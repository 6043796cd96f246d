package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InvalidParameters;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.ExecutionOutcome.UnknownTool;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.migration.Migration;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every ledger store must have, run against a real database. Subclasses supply only
 * the database: {@link #openStore} opens a store on this test's database (the same database each
 * time it is called within one test, so that a second call is a restart).
 */
abstract class LedgerContractTest {
  static final TenantId ACME = TenantId.of("acme");
  static final TenantId GLOBEX = TenantId.of("globex");

  protected JdbcLedgerStore store;
  protected ItemsTool items;
  protected LedgerEngine engine;

  /** Opens a store on this test's database, with the given extra migrations. */
  protected abstract JdbcLedgerStore openStore(List<SchemaMigrations> migrations);

  @BeforeEach
  void openLedger() {
    store = openStore(List.of(ItemsTool.MIGRATIONS));
    items = new ItemsTool();
    engine = LedgerEngine.builder(store, ToolRegistry.of(items)).build();
  }

  @AfterEach
  void closeLedger() {
    if (store != null) {
      store.close();
    }
  }

  static JsonNode params(String json) {
    return Json.parse(json);
  }

  ExecutionOutcome call(TenantId tenant, String key, String json) {
    return engine.execute(Invocation.of(tenant, OperationKey.of(key), "create-item", params(json)));
  }

  long count(String sql) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  long items() throws Exception {
    return count("SELECT COUNT(*) FROM test_items");
  }

  long operations() throws Exception {
    return count("SELECT COUNT(*) FROM tl_operations");
  }

  @Test
  void firstCallExecutesAndIdenticalRetryReplaysTheStoredResponse() throws Exception {
    ExecutionOutcome first = call(ACME, "op-1", "{\"name\":\"a\"}");
    ExecutionOutcome retry = call(ACME, "op-1", "{\"name\":\"a\"}");

    assertThat(first).isInstanceOf(Executed.class);
    assertThat(retry).isInstanceOf(Replayed.class);
    StoredResponse executed = ((Executed) first).response();
    assertThat(((Replayed) retry).response()).isEqualTo(executed);
    assertThat(executed.status()).isEqualTo(201);
    assertThat(items()).isEqualTo(1);
    assertThat(items.executions).hasValue(1);
  }

  /**
   * docs/tools.md promises it on both stores: a tool's connection is in the ledger's transaction,
   * and says so. On SQLite the driver learns of the ledger's own {@code BEGIN IMMEDIATE} only when
   * the store tells it; a tool that trusted an answer of {@code true} might commit on its own.
   */
  @Test
  void aToolsConnectionAnswersThatItIsNotInAutoCommit() throws Exception {
    assertThat(call(ACME, "op-1", "{\"name\":\"a\"}")).isInstanceOf(Executed.class);

    assertThat(items.autoCommitSeen).hasValue(false);
  }

  @Test
  void aReplayIsAReadAndOpensNoWriteTransaction() throws Exception {
    call(ACME, "op-1", "{\"name\":\"a\"}");
    long before = store.writeTransactions();

    for (int i = 0; i < 10; i++) {
      assertThat(call(ACME, "op-1", "{\"name\":\"a\"}")).isInstanceOf(Replayed.class);
    }
    assertThat(call(ACME, "op-1", "{\"name\":\"b\"}")).isInstanceOf(KeyReused.class);

    assertThat(store.writeTransactions() - before)
        .as("replays and conflicts are answered from one read, outside any write transaction")
        .isZero();
  }

  @Test
  void retryWithReorderedAndDefaultedParametersIsTheSameIntent() throws Exception {
    call(ACME, "op-1", "{\"name\":\"a\"}");
    ExecutionOutcome retry = call(ACME, "op-1", "{ \"count\": 1.0, \"name\": \"a\" }");

    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(items()).isEqualTo(1);
  }

  @Test
  void keyReusedWithOtherParametersIsAConflictAndExecutesNothing() throws Exception {
    call(ACME, "op-1", "{\"name\":\"a\"}");
    ExecutionOutcome changed = call(ACME, "op-1", "{\"name\":\"b\"}");

    assertThat(changed).isInstanceOf(KeyReused.class);
    assertThat(((KeyReused) changed).recordedTool()).isEqualTo("create-item");
    assertThat(items()).isEqualTo(1);
    assertThat(items.executions).hasValue(1);
  }

  @Test
  void keyReusedWithAnotherToolVersionIsAConflict() throws Exception {
    call(ACME, "op-1", "{\"name\":\"a\"}");
    TransactionalTool v2 =
        new TransactionalTool() {
          @Override
          public ToolDescriptor descriptor() {
            return ToolDescriptor.builder("create-item", "2")
                .inputSchema(items.descriptor().inputSchema())
                .build();
          }

          @Override
          public ToolResponse execute(
              dev.toolledger.api.TransactionContext context, JsonNode parameters) {
            throw new AssertionError("must not run");
          }
        };
    LedgerEngine upgraded = LedgerEngine.builder(store, ToolRegistry.of(v2)).build();

    ExecutionOutcome outcome =
        upgraded.execute(
            Invocation.of(
                ACME, OperationKey.of("op-1"), "create-item", params("{\"name\":\"a\"}")));

    assertThat(outcome).isInstanceOf(KeyReused.class);
  }

  @Test
  void newKeyWithIdenticalContentIsANewOperation() throws Exception {
    ExecutionOutcome first = call(ACME, "op-1", "{\"name\":\"a\"}");
    ExecutionOutcome second = call(ACME, "op-2", "{\"name\":\"a\"}");

    assertThat(second).isInstanceOf(Executed.class);
    assertThat(((Executed) second).response()).isNotEqualTo(((Executed) first).response());
    assertThat(items()).isEqualTo(2);
  }

  @Test
  void sameKeyInTwoTenantsNamesTwoOperations() throws Exception {
    ExecutionOutcome acme = call(ACME, "op-1", "{\"name\":\"a\"}");
    ExecutionOutcome globex = call(GLOBEX, "op-1", "{\"name\":\"b\"}");

    assertThat(acme).isInstanceOf(Executed.class);
    assertThat(globex).isInstanceOf(Executed.class);
    assertThat(engine.lookup(GLOBEX, OperationKey.of("op-1")).orElseThrow().response())
        .contains(((Executed) globex).response());
    assertThat(items()).isEqualTo(2);
  }

  @Test
  void aToolsSqlThatWouldEndTheLedgersTransactionIsRefusedAndNothingCommits() throws Exception {
    for (String sql :
        List.of(
            "COMMIT",
            "/* first a comment */ commit",
            "END",
            "ROLLBACK",
            "rollback transaction",
            "BEGIN",
            "SELECT 1; COMMIT")) {
      assertThatThrownBy(() -> call(ACME, "op-x", "{\"name\":\"sql:" + sql + "\"}"))
          .as(sql)
          .isInstanceOf(ToolExecutionException.class)
          .hasRootCauseInstanceOf(UnsupportedOperationException.class);

      assertThat(items()).as(sql).isZero();
      assertThat(operations()).as(sql).isZero();
    }
    assertThat(call(ACME, "op-y", "{\"name\":\"sql:SAVEPOINT s; ROLLBACK TO SAVEPOINT s\"}"))
        .isInstanceOf(Executed.class);
  }

  @Test
  void failureBetweenEffectAndRecordRollsBothBack() throws Exception {
    assertThatThrownBy(() -> call(ACME, "op-x", "{\"name\":\"explode\"}"))
        .isInstanceOf(ToolExecutionException.class);

    assertThat(items()).isZero();
    assertThat(operations()).isZero();
    assertThat(engine.lookup(ACME, OperationKey.of("op-x"))).isEmpty();
  }

  @Test
  void keyOfARolledBackAttemptMayBeUsedAgain() throws Exception {
    assertThatThrownBy(() -> call(ACME, "op-x", "{\"name\":\"explode\"}"))
        .isInstanceOf(ToolExecutionException.class);

    ExecutionOutcome retry = call(ACME, "op-x", "{\"name\":\"explode-not\"}");

    assertThat(retry).isInstanceOf(Executed.class);
    assertThat(items()).isEqualTo(1);
  }

  @Test
  void invalidParametersAreNotRecordedAndTheKeyStaysFree() throws Exception {
    ExecutionOutcome invalid = call(ACME, "op-1", "{\"name\":\"\"}");
    ExecutionOutcome corrected = call(ACME, "op-1", "{\"name\":\"a\"}");

    assertThat(invalid).isInstanceOf(InvalidParameters.class);
    assertThat(((InvalidParameters) invalid).violations()).extracting("field").contains("/name");
    assertThat(corrected).isInstanceOf(Executed.class);
    assertThat(items()).isEqualTo(1);
  }

  @Test
  void unknownToolChangesNothing() throws Exception {
    ExecutionOutcome outcome =
        engine.execute(Invocation.of(ACME, OperationKey.of("op-1"), "nope", params("{}")));

    assertThat(outcome).isEqualTo(new UnknownTool("nope"));
    assertThat(operations()).isZero();
  }

  @Test
  void businessErrorIsRecordedAndReplayedLikeASuccess() throws Exception {
    ExecutionOutcome first = call(ACME, "op-r", "{\"name\":\"refuse\"}");
    ExecutionOutcome retry = call(ACME, "op-r", "{\"name\":\"refuse\"}");

    assertThat(first).isInstanceOf(Executed.class);
    assertThat(((Executed) first).response().status()).isEqualTo(409);
    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(((Replayed) retry).response()).isEqualTo(((Executed) first).response());
    assertThat(items.executions).hasValue(1);
  }

  @Test
  void lookupShowsTheRecordToItsTenantOnly() {
    call(ACME, "op-1", "{\"name\":\"a\"}");

    OperationRecord record = engine.lookup(ACME, OperationKey.of("op-1")).orElseThrow();
    assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(record.tool()).contains("create-item");
    assertThat(record.completedAt()).isPresent();
    assertThat(record.expiresAt()).contains(record.completedAt().get().plus(Duration.ofDays(7)));
    assertThat(engine.lookup(GLOBEX, OperationKey.of("op-1"))).isEmpty();
  }

  @Test
  void replayWorksAfterTheStoreIsReopened() throws Exception {
    StoredResponse original = ((Executed) call(ACME, "op-1", "{\"name\":\"a\"}")).response();
    store.close();

    store = openStore(List.of(ItemsTool.MIGRATIONS));
    engine = LedgerEngine.builder(store, ToolRegistry.of(items)).build();
    ExecutionOutcome retry = call(ACME, "op-1", "{\"name\":\"a\"}");

    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(((Replayed) retry).response()).isEqualTo(original);
    assertThat(items()).isEqualTo(1);
  }

  @Test
  void concurrentIdenticalRequestsExecuteOnceAndAllGetTheSameResponse() throws Exception {
    int threads = 32;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<ExecutionOutcome>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return call(ACME, "op-race", "{\"name\":\"race\"}");
                }));
      }
      Set<StoredResponse> responses = new HashSet<>();
      int executed = 0;
      for (Future<ExecutionOutcome> future : futures) {
        ExecutionOutcome outcome = future.get(60, TimeUnit.SECONDS);
        if (outcome instanceof Executed e) {
          executed++;
          responses.add(e.response());
        } else if (outcome instanceof Replayed r) {
          responses.add(r.response());
        } else {
          throw new AssertionError("unexpected outcome " + outcome);
        }
      }
      assertThat(executed).isEqualTo(1);
      assertThat(responses).hasSize(1);
      assertThat(items()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void toolCannotEndTheEnginesTransaction() throws Exception {
    TransactionWork<Void> commitsEarly =
        tx -> {
          tx.connection().commit();
          return null;
        };
    assertThatThrownBy(() -> store.inTransaction(commitsEarly))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("commit");
    TransactionWork<Void> closes =
        tx -> {
          tx.connection().close();
          return null;
        };
    assertThatThrownBy(() -> store.inTransaction(closes))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void migrationsAreAppliedOnceAndReopeningIsANoOp() throws Exception {
    long versions = count("SELECT COUNT(*) FROM tl_schema_version");
    store.close();
    store = openStore(List.of(ItemsTool.MIGRATIONS));

    assertThat(count("SELECT COUNT(*) FROM tl_schema_version")).isEqualTo(versions);
    assertThat(count("SELECT MAX(version) FROM tl_schema_version WHERE component = 'ledger'"))
        .isEqualTo(LedgerSchema.migrations().latestVersion());
  }

  @Test
  void databaseWithANewerSchemaIsRefused() {
    SchemaMigrations future =
        SchemaMigrations.of(
            "test-items",
            ItemsTool.MIGRATIONS.migrations().get(0),
            Migration.portable(2, "a later change", "CREATE TABLE test_later (id INTEGER)"));
    store.close();
    store = openStore(List.of(future));
    store.close();

    assertThatThrownBy(() -> openStore(List.of(ItemsTool.MIGRATIONS)))
        .hasMessageContaining("schema is at version 2")
        .hasMessageContaining("knows versions up to 1");
    store = null;
  }

  @Test
  void engineRetriesTransientFailuresWithinItsBudget() throws Exception {
    FlakyTool flaky = new FlakyTool(2);
    LedgerEngine withFlaky =
        LedgerEngine.builder(store, ToolRegistry.of(flaky))
            .config(
                EngineConfig.builder()
                    .transactionAttempts(3)
                    .transactionBackoff(Duration.ZERO, Duration.ZERO)
                    .build())
            .build();

    ExecutionOutcome outcome =
        withFlaky.execute(Invocation.of(ACME, OperationKey.of("op-f"), "flaky", params("{}")));

    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(flaky.attempts).hasValue(3);
    assertThat(count("SELECT COUNT(*) FROM test_items WHERE name = 'flaky'")).isEqualTo(1);
  }

  @Test
  void engineAnswersBusyWhenTransientFailuresOutlastItsBudget() throws Exception {
    FlakyTool flaky = new FlakyTool(10);
    LedgerEngine withFlaky =
        LedgerEngine.builder(store, ToolRegistry.of(flaky))
            .config(
                EngineConfig.builder()
                    .transactionAttempts(3)
                    .transactionBackoff(Duration.ZERO, Duration.ZERO)
                    .build())
            .build();

    ExecutionOutcome outcome =
        withFlaky.execute(Invocation.of(ACME, OperationKey.of("op-f"), "flaky", params("{}")));

    assertThat(outcome).isInstanceOf(ExecutionOutcome.Busy.class);
    assertThat(flaky.attempts).hasValue(3);
    assertThat(count("SELECT COUNT(*) FROM test_items WHERE name = 'flaky'")).isZero();
    assertThat(operations()).isZero();
  }

  @Test
  void textWithNulIsRefusedAsInvalidParametersOnEveryStoreAndTheKeyStaysFree() throws Exception {
    // PostgreSQL cannot store U+0000 in text, SQLite can: the answer must not depend on the store.
    ExecutionOutcome refused = call(ACME, "op-nul", "{\"name\":\"a\\u0000b\"}");

    assertThat(refused).isInstanceOf(InvalidParameters.class);
    assertThat(((InvalidParameters) refused).violations())
        .singleElement()
        .satisfies(v -> assertThat(v.field()).isEqualTo("/name"))
        .satisfies(v -> assertThat(v.message()).contains("NUL character (U+0000)"));
    assertThat(items.executions).hasValue(0);
    assertThat(operations()).isZero();
    assertThat(call(ACME, "op-nul", "{\"name\":\"ab\"}")).isInstanceOf(Executed.class);
  }

  @Test
  void writeProbeCommitsARowOnAHealthyStore() throws Exception {
    assertThat(store.probeWrite()).isEmpty();
    assertThat(store.writeProblem()).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM tl_write_probe")).isEqualTo(1);
  }
}
