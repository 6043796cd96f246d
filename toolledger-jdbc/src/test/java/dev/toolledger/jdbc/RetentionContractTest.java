package dev.toolledger.jdbc;

import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_LOSE_RESPONSE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.Expired;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.engine.ResolveOutcome;
import dev.toolledger.core.engine.SweepPacing;
import dev.toolledger.core.engine.SweepReport;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.testkit.MovableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retention: records are kept for their tool's retention, swept in batches, and leave a tombstone
 * that refuses a late retry of the key until its window ends; IN_PROGRESS and UNKNOWN operations
 * are never swept. Time is the engine's clock, moved by the test.
 */
abstract class RetentionContractTest extends StoreContractTest {
  static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
  static final Duration RETENTION = Duration.ofDays(7);
  static final Duration WINDOW = Duration.ofDays(3);

  MovableClock clock;
  JdbcLedgerStore store;
  ItemsTool items;
  EventsTool events;
  FakeDownstream downstream;
  DownstreamTool plain;
  LedgerEngine engine;
  final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void openLedger() {
    clock = new MovableClock(T0);
    store = node(ItemsTool.MIGRATIONS);
    items = new ItemsTool();
    events = new EventsTool();
    downstream = new FakeDownstream();
    plain = DownstreamTool.plain("send-plain", downstream, Duration.ofSeconds(30));
    engine = engine(store, UnaryOperator.identity());
  }

  @AfterEach
  void stopThreads() throws Exception {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
  }

  LedgerEngine engine(JdbcLedgerStore on, UnaryOperator<EngineConfig.Builder> config) {
    return LedgerEngine.builder(on, ToolRegistry.of(items, events, plain))
        .config(
            config
                .apply(
                    EngineConfig.builder()
                        .clock(clock)
                        .nodeId("node-a")
                        .tombstoneWindow(WINDOW)
                        .maxWait(Duration.ofMillis(200)))
                .build())
        .build();
  }

  ExecutionOutcome createItem(TenantId tenant, String key, String name) {
    return engine.execute(
        Invocation.of(tenant, key(key), "create-item", Json.object().put("name", name)));
  }

  long rows(String table) {
    return queryLong(store, "SELECT COUNT(*) FROM " + table);
  }

  long items() {
    return rows("test_items");
  }

  @Test
  void expiredOperationIsSweptAndALateRetryIsRefusedAsExpiredWithoutExecuting() {
    OperationRecord recorded = ((Executed) createItem(ACME, "op-1", "a")).record();
    assertThat(recorded.expiresAt()).contains(T0.plus(RETENTION));

    clock.advance(RETENTION);
    SweepReport report = engine.sweep(500);

    assertThat(report.swept()).isEqualTo(1);
    assertThat(store.find(ACME, key("op-1"))).isEmpty();
    Tombstone tombstone = store.findTombstone(ACME, key("op-1")).orElseThrow();
    assertThat(tombstone.tool()).contains("create-item");
    assertThat(tombstone.fingerprint()).isEqualTo(recorded.intent().map(i -> i.fingerprint()));
    assertThat(tombstone.expiredAt()).isEqualTo(T0.plus(RETENTION));
    assertThat(tombstone.until()).isEqualTo(T0.plus(RETENTION).plus(WINDOW));

    ExecutionOutcome sameRetry = createItem(ACME, "op-1", "a");
    ExecutionOutcome otherParameters = createItem(ACME, "op-1", "b");

    assertThat(sameRetry).isInstanceOf(Expired.class);
    assertThat(((Expired) sameRetry).tombstone()).isEqualTo(tombstone);
    assertThat(otherParameters).isInstanceOf(Expired.class);
    assertThat(items.executions).hasValue(1);
    assertThat(items()).isEqualTo(1);
    assertThat(store.find(ACME, key("op-1"))).isEmpty();
    assertThat(engine.lookup(ACME, key("op-1"))).isEmpty();
    assertThat(engine.tombstone(ACME, key("op-1"))).contains(tombstone);
  }

  @Test
  void recordIsKeptAndReplayedUntilItsExpiryAndSweptFromItsExpiryOn() {
    createItem(ACME, "op-1", "a");

    clock.advance(RETENTION.minusMillis(1));
    assertThat(engine.sweep(500).swept()).isZero();
    assertThat(createItem(ACME, "op-1", "a")).isInstanceOf(Replayed.class);

    clock.advance(Duration.ofMillis(1));
    assertThat(engine.sweep(500).swept()).isEqualTo(1);
    assertThat(createItem(ACME, "op-1", "a")).isInstanceOf(Expired.class);
    assertThat(items.executions).hasValue(1);
  }

  @Test
  void afterTheTombstoneWindowTheKeyIsNewAgainEvenBeforeTheTombstoneIsPruned() {
    createItem(ACME, "op-1", "a");
    clock.advance(RETENTION);
    engine.sweep(500);

    clock.advance(WINDOW.minusMillis(1));
    assertThat(createItem(ACME, "op-1", "a")).isInstanceOf(Expired.class);
    clock.advance(Duration.ofMillis(1));
    assertThat(engine.tombstone(ACME, key("op-1"))).isEmpty();
    ExecutionOutcome again = createItem(ACME, "op-1", "a");

    assertThat(again).isInstanceOf(Executed.class);
    assertThat(items.executions).hasValue(2);
    assertThat(rows("tl_tombstones")).as("not pruned yet").isEqualTo(1);

    // The new operation of the key expires in its turn and replaces the old tombstone.
    clock.advance(RETENTION);
    SweepReport report = engine.sweep(500);
    assertThat(report.swept()).isEqualTo(1);
    assertThat(store.findTombstone(ACME, key("op-1")).orElseThrow().expiredAt())
        .isEqualTo(T0.plus(RETENTION).plus(WINDOW).plus(RETENTION));
    assertThat(createItem(ACME, "op-1", "a")).isInstanceOf(Expired.class);
  }

  @Test
  void tombstonesWhoseWindowEndedArePrunedByTheSweep() {
    createItem(ACME, "op-1", "a");
    createItem(ACME, "op-2", "b");
    clock.advance(RETENTION);
    engine.sweep(500);
    assertThat(rows("tl_tombstones")).isEqualTo(2);

    clock.advance(WINDOW);
    SweepReport report = engine.sweep(500);

    assertThat(report.pruned()).isEqualTo(2);
    assertThat(rows("tl_tombstones")).isZero();
  }

  @Test
  void inProgressAndUnknownOperationsAreNeverSweptWhateverTheirTimesSay() {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);
    ExecutionOutcome unknown =
        engine.execute(
            Invocation.of(ACME, key("op-unknown"), plain.name(), DownstreamTool.params("ann")));
    assertThat(unknown).isInstanceOf(OutcomeUnknown.class);
    ClaimResult claim =
        store.inTransaction(
            tx ->
                tx.claimLeased(
                    new NewOperation(
                        ACME,
                        key("op-running"),
                        plain.intent(DownstreamTool.params("bob")),
                        clock.instant()),
                    new LeaseClaim("node-b", Duration.ofHours(1), "{\"to\":\"bob\"}"),
                    Duration.ZERO));
    assertThat(claim).isInstanceOf(ClaimResult.Claimed.class);
    // Make them look as old as anything can: an expiry at the epoch, far in the past.
    try (var c = store.dataSource().getConnection();
        var st = c.createStatement()) {
      st.executeUpdate("UPDATE tl_operations SET expires_at = 0");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }

    clock.advance(Duration.ofDays(365));
    SweepReport report = engine.sweep(500);

    assertThat(report.swept()).isZero();
    assertThat(store.find(ACME, key("op-unknown")).orElseThrow().state())
        .isEqualTo(OperationState.UNKNOWN);
    assertThat(store.find(ACME, key("op-running")).orElseThrow().state())
        .isEqualTo(OperationState.IN_PROGRESS);
    assertThat(store.history(ACME, key("op-unknown"))).isNotEmpty();
    assertThat(rows("tl_tombstones")).isZero();
  }

  @Test
  void anUnknownOperationResolvedLaterExpiresFromItsResolution() {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);
    engine.execute(Invocation.of(ACME, key("op-1"), plain.name(), DownstreamTool.params("ann")));
    clock.advance(Duration.ofDays(30));
    engine.resolve(
        ACME, key("op-1"), new Resolution.MarkNotExecuted("the mail log has nothing"), "token:t");

    clock.advance(RETENTION.minusMillis(1));
    assertThat(engine.sweep(500).swept()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(engine.sweep(500).swept()).isEqualTo(1);
    assertThat(store.findTombstone(ACME, key("op-1"))).isPresent();
  }

  @Test
  void sweepDeletesInBatchesEachInItsOwnTransaction() {
    for (int i = 0; i < 7; i++) {
      createItem(ACME, "op-" + i, "n" + i);
    }
    clock.advance(RETENTION);
    long before = store.writeTransactions();

    SweepReport report = engine.sweep(3);

    assertThat(report.swept()).isEqualTo(7);
    // Three sweep batches (3, 3, 1) and one pruning batch that found nothing.
    assertThat(report.transactions()).isEqualTo(4);
    assertThat(store.writeTransactions() - before).isEqualTo(4);
    assertThat(rows("tl_operations")).isZero();
    assertThat(rows("tl_tombstones")).isEqualTo(7);
    assertThat(items()).as("the tools' own data is not the ledger's to sweep").isEqualTo(7);
  }

  @Test
  void theSweepPacesItselfByTheStoresDefaultUnlessConfigured() {
    SweepPacing expected =
        new SweepPacing(
            store.dialect() == SqlDialect.SQLITE
                ? SweepPacing.SQLITE_WRITE_SHARE
                : SweepPacing.POSTGRESQL_WRITE_SHARE,
            SweepPacing.DEFAULT_MAX_PAUSE);
    assertThat(engine.sweepPacing()).isEqualTo(expected);

    SweepPacing half = new SweepPacing(0.5, Duration.ofMillis(200));
    assertThat(engine(store, c -> c.sweepPacing(half)).sweepPacing()).isEqualTo(half);
  }

  @Test
  void aSweepPausesAfterEachFullBatchAsItsPacingSaysAndDeletesOnlyWhatExpired() {
    for (int i = 0; i < 4; i++) {
      createItem(ACME, "old-" + i, "n" + i);
    }
    clock.advance(Duration.ofHours(1));
    createItem(ACME, "young", "y");
    clock.advance(RETENTION.minus(Duration.ofHours(1)));
    // A share so small that every pause is the longest allowed: 100 ms.
    LedgerEngine paced =
        engine(store, c -> c.sweepPacing(new SweepPacing(0.0001, Duration.ofMillis(100))));

    long start = System.nanoTime();
    SweepReport report = paced.sweep(1);
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(report.swept()).isEqualTo(4);
    // Four full batches, each followed by its pause; the fifth came back empty and ended the pass.
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(400);
    assertThat(store.find(ACME, key("young"))).isPresent();
    assertThat(store.findTombstone(ACME, key("young"))).isEmpty();
    assertThat(rows("tl_tombstones")).isEqualTo(4);
  }

  @Test
  void aSweepPausesBetweenBatchesAndAnInterruptEndsThePassAfterTheCurrentBatch() throws Exception {
    for (int i = 0; i < 200; i++) {
      createItem(ACME, "op-" + i, "n" + i);
    }
    clock.advance(RETENTION);
    java.util.concurrent.atomic.AtomicReference<SweepReport> result =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean flagKept =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread sweeper =
        new Thread(
            () -> {
              // One record per batch: 200 batches, each followed by a pause of at least 1 ms.
              result.set(engine.sweep(1));
              flagKept.set(Thread.currentThread().isInterrupted());
            });
    sweeper.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (rows("tl_tombstones") < 3 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    sweeper.interrupt();
    sweeper.join(10_000);

    SweepReport report = result.get();
    assertThat(report.complete()).as("the interrupt ended the pass").isFalse();
    assertThat(flagKept).isTrue();
    assertThat(report.swept()).isBetween(3L, 199L);
    assertThat(report.longestBatch()).isPositive();
    assertThat(report.batchTime()).isGreaterThanOrEqualTo(report.longestBatch());
    // Whatever the pass deleted it deleted whole: each swept record left its tombstone.
    assertThat(rows("tl_tombstones")).isEqualTo(report.swept());
    assertThat(rows("tl_operations")).isEqualTo(200 - report.swept());
    assertThat(engine.sweep(500).complete()).isTrue();
    assertThat(rows("tl_operations")).isZero();
  }

  @Test
  void sweptOperationTakesItsHistoryAndDeliveredEventsAndLeavesPendingEvents() {
    ExecutionOutcome sent =
        engine.execute(
            Invocation.of(ACME, key("op-mail"), plain.name(), DownstreamTool.params("a")));
    assertThat(sent).isInstanceOf(Executed.class);
    assertThat(store.history(ACME, key("op-mail"))).hasSize(2);
    ExecutionOutcome created =
        engine.execute(
            Invocation.of(ACME, key("op-events"), events.name(), EventsTool.params("e", 2)));
    assertThat(created).isInstanceOf(Executed.class);
    List<OutboxEvent> claimed = store.claimDue("relay", Duration.ofMinutes(1), 1);
    assertThat(claimed).hasSize(1);
    assertThat(store.markDelivered(claimed.get(0).id(), "relay")).isTrue();

    clock.advance(RETENTION);
    assertThat(engine.sweep(500).swept()).isEqualTo(2);

    assertThat(store.history(ACME, key("op-mail"))).isEmpty();
    assertThat(rows("tl_operation_history")).isZero();
    assertThat(store.findEvent(claimed.get(0).id())).isEmpty();
    assertThat(rows("tl_outbox")).as("the pending event still awaits delivery").isEqualTo(1);
  }

  @Test
  void fencedKeyExpiresIntoATombstoneThatStillRefusesALateRequest() {
    assertThat(engine.resolve(ACME, key("op-gone"), new Resolution.Inquiry(), "token:t"))
        .isInstanceOf(ResolveOutcome.Fenced.class);

    clock.advance(RETENTION);
    assertThat(engine.sweep(500).swept()).isEqualTo(1);

    Tombstone tombstone = store.findTombstone(ACME, key("op-gone")).orElseThrow();
    assertThat(tombstone.tool()).isEmpty();
    assertThat(tombstone.fingerprint()).isEmpty();
    assertThat(createItem(ACME, "op-gone", "late")).isInstanceOf(Expired.class);
    assertThat(items.executions).hasValue(0);
  }

  @Test
  void resolvingAnExpiredKeyAnswersExpiredAndWritesNothing() {
    createItem(ACME, "op-1", "a");
    clock.advance(RETENTION);
    engine.sweep(500);

    ResolveOutcome inquiry = engine.resolve(ACME, key("op-1"), new Resolution.Inquiry(), "t");
    ResolveOutcome explicit =
        engine.resolve(ACME, key("op-1"), new Resolution.MarkNotExecuted("why not"), "t");

    assertThat(inquiry).isInstanceOf(ResolveOutcome.Expired.class);
    assertThat(explicit).isInstanceOf(ResolveOutcome.Expired.class);
    assertThat(rows("tl_operations")).isZero();
    assertThat(rows("tl_operation_history")).isZero();
  }

  @Test
  void lateRetryOfAnExternalToolIsRefusedWithoutCallingTheDownstream() {
    engine.execute(Invocation.of(ACME, key("op-1"), plain.name(), DownstreamTool.params("a")));
    clock.advance(RETENTION);
    engine.sweep(500);

    ExecutionOutcome late =
        engine.execute(Invocation.of(ACME, key("op-1"), plain.name(), DownstreamTool.params("a")));

    assertThat(late).isInstanceOf(Expired.class);
    assertThat(downstream.performs).hasSize(1);
    assertThat(rows("tl_operations")).isZero();
  }

  @Test
  void aTombstoneGuardsItsKeyInItsOwnTenantOnly() {
    createItem(ACME, "op-1", "a");
    clock.advance(RETENTION);
    engine.sweep(500);

    assertThat(createItem(GLOBEX, "op-1", "a")).isInstanceOf(Executed.class);
    assertThat(engine.tombstone(GLOBEX, key("op-1"))).isEmpty();
  }

  @Test
  void aZeroTombstoneWindowLeavesNoTombstoneAndTheKeyIsNewAfterTheSweep() {
    engine = engine(store, c -> c.tombstoneWindow(Duration.ZERO));
    createItem(ACME, "op-1", "a");
    clock.advance(RETENTION);

    assertThat(engine.sweep(500).swept()).isEqualTo(1);

    assertThat(rows("tl_tombstones")).isZero();
    assertThat(createItem(ACME, "op-1", "a")).isInstanceOf(Executed.class);
  }

  @Test
  void aRetentionOverrideDecidesWhenAToolsRecordsExpire() {
    engine = engine(store, c -> c.retention("create-item", Duration.ofDays(1)));
    OperationRecord record = ((Executed) createItem(ACME, "op-1", "a")).record();

    assertThat(record.expiresAt()).contains(T0.plus(Duration.ofDays(1)));
    assertThat(engine.retention(items.descriptor())).isEqualTo(Duration.ofDays(1));
    assertThat(engine.retention(plain.descriptor())).isEqualTo(Duration.ofDays(7));
    clock.advance(Duration.ofDays(1));
    assertThat(engine.sweep(500).swept()).isEqualTo(1);
  }

  @Test
  void aRetentionOverrideMustNameAToolAndBePositive() {
    assertThatThrownBy(() -> engine(store, c -> c.retention("no-such-tool", Duration.ofDays(1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-tool");
    assertThatThrownBy(() -> EngineConfig.builder().retention("create-item", Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retention of tool create-item must be positive");
    assertThatThrownBy(
            () -> EngineConfig.builder().retention("create-item", Duration.ofDays(-1)).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sweepersOnTwoNodesDeleteEachExpiredOperationOnce() throws Exception {
    int operations = 60;
    for (int i = 0; i < operations; i++) {
      createItem(ACME, "op-" + i, "n" + i);
    }
    clock.advance(RETENTION);
    List<LedgerEngine> nodes = List.of(engine, engine(node(), UnaryOperator.identity()));
    CyclicBarrier start = new CyclicBarrier(nodes.size());
    List<Future<SweepReport>> passes = new ArrayList<>();
    for (LedgerEngine node : nodes) {
      passes.add(
          threads.submit(
              () -> {
                start.await(30, TimeUnit.SECONDS);
                return node.sweep(5);
              }));
    }
    long swept = 0;
    for (Future<SweepReport> pass : passes) {
      swept += pass.get(60, TimeUnit.SECONDS).swept();
    }

    assertThat(swept).isEqualTo(operations);
    assertThat(rows("tl_operations")).isZero();
    assertThat(rows("tl_tombstones")).isEqualTo(operations);
  }
}
