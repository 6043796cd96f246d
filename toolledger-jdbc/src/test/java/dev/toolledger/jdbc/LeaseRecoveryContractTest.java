package dev.toolledger.jdbc;

import static dev.toolledger.jdbc.FakeDownstream.Answer.PENDING;
import static dev.toolledger.jdbc.FakeDownstream.Answer.TRUTH;
import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_PAUSE;
import static dev.toolledger.jdbc.FakeDownstream.Step.NOT_DONE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.core.engine.DownstreamKeys;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.NotExecuted;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.RecoveryReport;
import dev.toolledger.core.engine.RecoveryWorker;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases, takeovers and fencing tokens: what happens to a claim whose executor vanished or paused,
 * when node clocks disagree, and when several nodes recover at once.
 */
abstract class LeaseRecoveryContractTest extends StoreContractTest {
  static final Duration SHORT_LEASE = Duration.ofMillis(300);
  static final JsonNode PARAMS = DownstreamTool.params("someone");

  JdbcLedgerStore store;
  FakeDownstream downstream;
  DownstreamTool plain;
  DownstreamTool lookup;
  DownstreamTool idempotent;
  DownstreamTool longLease;
  DownstreamTool batch;
  final ExecutorService callers = Executors.newCachedThreadPool();

  @BeforeEach
  void openLedger() {
    store = node();
    downstream = new FakeDownstream();
    plain = DownstreamTool.plain("send-plain", downstream, SHORT_LEASE);
    lookup = DownstreamTool.withLookup("send-lookup", downstream, SHORT_LEASE);
    idempotent = DownstreamTool.idempotent("send-idempotent", downstream, SHORT_LEASE);
    longLease = DownstreamTool.withLookup("send-slowly", downstream, Duration.ofSeconds(30));
    batch = DownstreamTool.withLookup("send-batch", downstream, Duration.ofSeconds(1));
  }

  @AfterEach
  void stopCallers() throws Exception {
    downstream.resume.countDown();
    callers.shutdownNow();
    callers.awaitTermination(30, TimeUnit.SECONDS);
  }

  LedgerEngine engine(String node) {
    return engine(node, store, EngineConfig.builder().nodeId(node).maxWait(Duration.ofMillis(200)));
  }

  LedgerEngine engine(String node, JdbcLedgerStore on, EngineConfig.Builder config) {
    return LedgerEngine.builder(on, ToolRegistry.of(plain, lookup, idempotent, longLease, batch))
        .config(config.nodeId(node).build())
        .downstreamKeys(KEYS)
        .build();
  }

  ExecutionOutcome call(LedgerEngine engine, DownstreamTool tool, TenantId tenant, String key) {
    return engine.execute(Invocation.of(tenant, key(key), tool.name(), PARAMS));
  }

  Future<ExecutionOutcome> callInBackground(
      LedgerEngine engine, DownstreamTool tool, TenantId tenant, String key) {
    return callers.submit(() -> call(engine, tool, tenant, key));
  }

  /** A claim written as the engine writes it, by a node that then vanished. */
  void claimOfAVanishedNode(DownstreamTool tool, TenantId tenant, String key, Duration lease) {
    ClaimResult claim =
        store.inTransaction(
            tx ->
                tx.claimLeased(
                    new NewOperation(tenant, key(key), tool.intent(PARAMS), Instant.now()),
                    new LeaseClaim(
                        "node-gone", lease, Json.write(PARAMS), downstreamKey(tenant, key)),
                    Duration.ofSeconds(5)));
    assertThat(claim).isEqualTo(new ClaimResult.Claimed(1));
  }

  OperationRecord record(TenantId tenant, String key) {
    return store.find(tenant, key(key)).orElseThrow();
  }

  /** The installation's downstream keys in these tests, so that a test can predict them. */
  static final DownstreamKeys KEYS = DownstreamKeys.of(new byte[32]);

  static String downstreamKey(TenantId tenant, String key) {
    return KEYS.derive(tenant, OperationKey.of(key));
  }

  static StoredResponse stored(ToolResponse response) {
    return new StoredResponse(response.status(), Json.write(response.body()));
  }

  static long takeovers(List<HistoryEntry> history) {
    return history.stream().filter(h -> h.cause().contains("expired; taken over")).count();
  }

  // ------------------------------------------------------------------ vanished executors

  @Test
  void claimOfAVanishedExecutorIsTakenOverAfterItsLeaseAndSettledByLookup() {
    claimOfAVanishedNode(lookup, ACME, "op-1", SHORT_LEASE);
    ToolResponse effect = downstream.apply(downstreamKey(ACME, "op-1"), false);
    awaitLeaseExpiry(store, ACME, key("op-1"));

    RecoveryReport report = engine("node-b").recoverExpiredClaims(10);

    assertThat(report.examined()).isEqualTo(1);
    assertThat(report.completed()).isEqualTo(1);
    OperationRecord record = record(ACME, "op-1");
    assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(record.response()).contains(stored(FakeDownstream.lookedUp(effect)));
    assertThat(fenceOf(store, ACME, key("op-1"))).isEqualTo(2);
    assertThat(downstream.performs).isEmpty();
    assertThat(downstream.lookups).extracting(c -> c.fence()).containsExactly(2L);
    List<HistoryEntry> history = store.history(ACME, key("op-1"));
    assertThat(history).hasSize(2);
    assertThat(history.get(0).cause()).contains("node-gone").contains("taken over");
    assertThat(history.get(0).actor()).isEqualTo("node:node-b");
    assertThat(history.get(0).fence()).isEqualTo(2);
    assertThat(history.get(1).to()).isEqualTo(OperationState.COMPLETED);
    assertThat(call(engine("node-a"), lookup, ACME, "op-1")).isInstanceOf(Replayed.class);
    assertThat(downstream.performs).isEmpty();
  }

  @Test
  void claimOfAVanishedExecutorWhoseEffectTheLookupCannotFindIsNotExecuted() {
    claimOfAVanishedNode(lookup, ACME, "op-1", SHORT_LEASE);
    awaitLeaseExpiry(store, ACME, key("op-1"));

    RecoveryReport report = engine("node-b").recoverExpiredClaims(10);

    assertThat(report.notExecuted()).isEqualTo(1);
    assertThat(record(ACME, "op-1").state()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(call(engine("node-a"), lookup, ACME, "op-1")).isInstanceOf(NotExecuted.class);
    assertThat(downstream.performs).isEmpty();
  }

  @Test
  void claimOfAVanishedExecutorOnAnIdempotentDownstreamIsPerformedAgainWithTheSameKey() {
    claimOfAVanishedNode(idempotent, ACME, "op-1", SHORT_LEASE);
    ToolResponse effect = downstream.apply(downstreamKey(ACME, "op-1"), true);
    awaitLeaseExpiry(store, ACME, key("op-1"));

    RecoveryReport report = engine("node-b").recoverExpiredClaims(10);

    assertThat(report.completed()).isEqualTo(1);
    assertThat(record(ACME, "op-1").response()).contains(stored(effect));
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.performs.get(0).downstreamKey()).isEqualTo(downstreamKey(ACME, "op-1"));
    assertThat(downstream.performs.get(0).fence()).isEqualTo(2);
    assertThat(downstream.effects(downstreamKey(ACME, "op-1"))).hasSize(1);
  }

  @Test
  void claimStoredWithItsDownstreamKeyIsSettledWithThatKeyWhateverTheEngineDerivesNow() {
    String claimedWith =
        DownstreamKeys.of(
                new byte[] {
                  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
                })
            .derive(ACME, key("op-1"));
    assertThat(claimedWith).isNotEqualTo(downstreamKey(ACME, "op-1")).startsWith("tl2-");
    store.inTransaction(
        tx ->
            tx.claimLeased(
                new NewOperation(ACME, key("op-1"), idempotent.intent(PARAMS), Instant.now()),
                new LeaseClaim("node-gone", SHORT_LEASE, Json.write(PARAMS), claimedWith),
                Duration.ofSeconds(5)));
    ToolResponse effect = downstream.apply(claimedWith, true);
    awaitLeaseExpiry(store, ACME, key("op-1"));

    RecoveryReport report = engine("node-b").recoverExpiredClaims(10);

    assertThat(report.completed()).isEqualTo(1);
    assertThat(downstream.performs.get(0).downstreamKey()).isEqualTo(claimedWith);
    assertThat(record(ACME, "op-1").response()).contains(stored(effect));
    assertThat(downstream.effects(claimedWith)).hasSize(1);
  }

  @Test
  void claimMadeBeforeKeysWereStoredIsSettledWithTheFirstDerivationsKey() {
    store.inTransaction(
        tx ->
            tx.claimLeased(
                new NewOperation(ACME, key("op-1"), idempotent.intent(PARAMS), Instant.now()),
                new LeaseClaim("node-gone", SHORT_LEASE, Json.write(PARAMS)),
                Duration.ofSeconds(5)));
    String legacy = DownstreamKeys.legacy(ACME, key("op-1"));
    downstream.apply(legacy, true);
    awaitLeaseExpiry(store, ACME, key("op-1"));

    RecoveryReport report = engine("node-b").recoverExpiredClaims(10);

    assertThat(report.completed()).isEqualTo(1);
    assertThat(legacy).startsWith("tl-");
    assertThat(downstream.performs.get(0).downstreamKey()).isEqualTo(legacy);
    assertThat(downstream.effects(legacy)).hasSize(1);
  }

  @Test
  void claimOfAVanishedExecutorWithoutLookupOrIdempotentDownstreamIsUnknownAndNeverRunAgain() {
    claimOfAVanishedNode(plain, ACME, "op-1", SHORT_LEASE);
    awaitLeaseExpiry(store, ACME, key("op-1"));
    LedgerEngine recoverer = engine("node-b");

    RecoveryReport report = recoverer.recoverExpiredClaims(10);
    RecoveryReport again = recoverer.recoverExpiredClaims(10);

    assertThat(report.unknown()).isEqualTo(1);
    assertThat(again.examined()).isZero();
    assertThat(record(ACME, "op-1").state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(call(engine("node-a"), plain, ACME, "op-1")).isInstanceOf(OutcomeUnknown.class);
    assertThat(downstream.performs).isEmpty();
    assertThat(downstream.lookups).isEmpty();
  }

  @Test
  void claimWhoseLookupStaysPendingIsTakenOverAgainAndBecomesUnknownAfterMaxTakeovers() {
    claimOfAVanishedNode(lookup, ACME, "op-1", SHORT_LEASE);
    downstream.answerByDefault(PENDING);
    LedgerEngine recoverer =
        engine("node-b", store, EngineConfig.builder().maxTakeovers(2).maxWait(Duration.ZERO));

    awaitLeaseExpiry(store, ACME, key("op-1"));
    RecoveryReport first = recoverer.recoverExpiredClaims(10);
    OperationRecord afterFirst = record(ACME, "op-1");
    awaitLeaseExpiry(store, ACME, key("op-1"));
    RecoveryReport second = recoverer.recoverExpiredClaims(10);

    assertThat(first.stillInProgress()).isEqualTo(1);
    assertThat(afterFirst.state()).isEqualTo(OperationState.IN_PROGRESS);
    assertThat(second.unknown()).isEqualTo(1);
    assertThat(record(ACME, "op-1").state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(fenceOf(store, ACME, key("op-1"))).isEqualTo(3);
    assertThat(downstream.lookups).extracting(c -> c.fence()).containsExactly(2L, 3L);
    assertThat(downstream.performs).isEmpty();
    List<HistoryEntry> history = store.history(ACME, key("op-1"));
    assertThat(takeovers(history)).isEqualTo(2);
    assertThat(history.get(history.size() - 1).cause()).contains("after 2 takeovers");
  }

  @Test
  void idempotentReplayReportingNothingDoneAfterATakeoverFencesTheKeyAndKeepsTheRecord() {
    claimOfAVanishedNode(idempotent, ACME, "op-1", SHORT_LEASE);
    downstream.script(NOT_DONE);
    awaitLeaseExpiry(store, ACME, key("op-1"));

    engine("node-b").recoverExpiredClaims(10);

    // The vanished executor may still be running: deleting its claim would let a new claim of the
    // same key start with fence 1 again, which that executor could then complete.
    OperationRecord record = record(ACME, "op-1");
    assertThat(record.state()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(call(engine("node-a"), idempotent, ACME, "op-1")).isInstanceOf(NotExecuted.class);
    assertThat(downstream.performs).hasSize(1);
  }

  @Test
  void recoveryWorkerSettlesExpiredClaimsInTheBackground() {
    claimOfAVanishedNode(lookup, ACME, "op-1", SHORT_LEASE);
    downstream.apply(downstreamKey(ACME, "op-1"), false);

    try (RecoveryWorker worker =
        RecoveryWorker.start(engine("node-b"), Duration.ofMillis(50), 10)) {
      await(
          "the recovery worker settled the claim",
          () -> record(ACME, "op-1").state() == OperationState.COMPLETED);
    }

    assertThat(fenceOf(store, ACME, key("op-1"))).isEqualTo(2);
    assertThat(downstream.lookups).hasSize(1);
    assertThat(downstream.performs).isEmpty();
  }

  // ------------------------------------------------------------------ fencing

  @Test
  void lateResultOfAPausedExecutorIsRefusedAndItsCallerGetsTheSettledAnswer() throws Exception {
    downstream.script(EFFECT_THEN_PAUSE);
    Future<ExecutionOutcome> paused = callInBackground(engine("node-a"), lookup, ACME, "op-f");
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();
    awaitLeaseExpiry(store, ACME, key("op-f"));

    RecoveryReport report = engine("node-b").recoverExpiredClaims(10);

    assertThat(report.completed()).isEqualTo(1);
    ToolResponse effect = downstream.effects(downstreamKey(ACME, "op-f")).get(0);
    OperationRecord settled = record(ACME, "op-f");
    assertThat(settled.response()).contains(stored(FakeDownstream.lookedUp(effect)));
    // The first executor's fence is no longer current: the store refuses its write.
    boolean stale =
        store.inTransaction(
            tx ->
                tx.completeFenced(
                    ACME,
                    key("op-f"),
                    1,
                    new StoredResponse(201, "{\"late\":true}"),
                    Instant.now(),
                    Instant.now().plus(Duration.ofDays(1))));
    assertThat(stale).isFalse();

    downstream.resume.countDown();
    ExecutionOutcome answer = paused.get(30, TimeUnit.SECONDS);

    assertThat(answer).isInstanceOf(Replayed.class);
    assertThat(((Replayed) answer).response()).isEqualTo(settled.response().get());
    assertThat(record(ACME, "op-f")).isEqualTo(settled);
    List<HistoryEntry> history = store.history(ACME, key("op-f"));
    HistoryEntry refusal = history.get(history.size() - 1);
    assertThat(refusal.cause()).contains("fence 1 arrived late and was refused");
    assertThat(refusal.actor()).isEqualTo("node:node-a");
    assertThat(refusal.fence()).isEqualTo(1);
    assertThat(refusal.to()).isEqualTo(OperationState.COMPLETED);
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.totalEffects()).isEqualTo(1);
  }

  @Test
  void lateResultAfterATakeoverThatRecordedUnknownIsRefusedAndItsCallerHearsUnknown()
      throws Exception {
    downstream.script(EFFECT_THEN_PAUSE);
    Future<ExecutionOutcome> paused = callInBackground(engine("node-a"), plain, ACME, "op-f");
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();
    awaitLeaseExpiry(store, ACME, key("op-f"));
    assertThat(engine("node-b").recoverExpiredClaims(10).unknown()).isEqualTo(1);

    downstream.resume.countDown();
    ExecutionOutcome answer = paused.get(30, TimeUnit.SECONDS);

    assertThat(answer).isInstanceOf(OutcomeUnknown.class);
    assertThat(record(ACME, "op-f").state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(store.history(ACME, key("op-f")))
        .anyMatch(h -> h.cause().contains("arrived late and was refused") && h.fence() == 1);
  }

  @Test
  void lateResultOfTheFirstExecutorNeverLandsOnALaterClaimOfTheSameKey() throws Exception {
    // The first executor pauses; recovery performs again on the idempotent downstream, which says
    // that nothing was done for the key. A later request for the key must not open a fresh claim
    // with fence 1, or the paused executor's late result would complete it.
    downstream.script(EFFECT_THEN_PAUSE, NOT_DONE);
    Future<ExecutionOutcome> paused =
        callInBackground(engine("node-a"), idempotent, ACME, "op-aba");
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();
    awaitLeaseExpiry(store, ACME, key("op-aba"));
    engine("node-b").recoverExpiredClaims(10);

    ClaimResult later =
        store.inTransaction(
            tx ->
                tx.claimLeased(
                    new NewOperation(ACME, key("op-aba"), idempotent.intent(PARAMS), Instant.now()),
                    new LeaseClaim("node-c", Duration.ofSeconds(30), Json.write(PARAMS)),
                    Duration.ofSeconds(5)));
    downstream.resume.countDown();
    ExecutionOutcome answer = paused.get(30, TimeUnit.SECONDS);

    assertThat(record(ACME, "op-aba").state()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(later).isInstanceOf(ClaimResult.Existing.class);
    assertThat(answer).isInstanceOf(NotExecuted.class);
  }

  // ------------------------------------------------------------------ clocks

  @Test
  void nodeWithAClockHoursAheadDoesNotTakeOverAFreshClaimOfAnotherNode() throws Exception {
    downstream.script(EFFECT_THEN_PAUSE);
    LedgerEngine honest = engine("node-a");
    LedgerEngine ahead =
        engine(
            "node-ahead",
            store,
            EngineConfig.builder()
                .maxWait(Duration.ofMillis(100))
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(6))));
    Future<ExecutionOutcome> running = callInBackground(honest, longLease, ACME, "op-s");
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();

    RecoveryReport report = ahead.recoverExpiredClaims(10);
    ExecutionOutcome duplicate = call(ahead, longLease, ACME, "op-s");
    downstream.resume.countDown();
    ExecutionOutcome outcome = running.get(30, TimeUnit.SECONDS);

    assertThat(report.examined()).isZero();
    assertThat(duplicate).isInstanceOf(InProgress.class);
    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(fenceOf(store, ACME, key("op-s"))).isEqualTo(1);
    assertThat(takeovers(store.history(ACME, key("op-s")))).isZero();
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.totalEffects()).isEqualTo(1);
  }

  @Test
  void claimOfANodeWithAClockHoursBehindIsNotTakenOverEarly() throws Exception {
    downstream.script(EFFECT_THEN_PAUSE);
    LedgerEngine behind =
        engine(
            "node-behind",
            store,
            EngineConfig.builder()
                .maxWait(Duration.ofMillis(100))
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(-6))));
    Future<ExecutionOutcome> running = callInBackground(behind, longLease, ACME, "op-s");
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();

    RecoveryReport report = engine("node-a").recoverExpiredClaims(10);
    downstream.resume.countDown();

    assertThat(report.examined()).isZero();
    assertThat(store.expiredClaims(10)).isEmpty();
    assertThat(running.get(30, TimeUnit.SECONDS)).isInstanceOf(Executed.class);
    assertThat(fenceOf(store, ACME, key("op-s"))).isEqualTo(1);
    assertThat(downstream.performs).hasSize(1);
  }

  // ------------------------------------------------------------------ concurrent recoverers

  @Test
  void concurrentRecoverersTakeEachExpiredClaimOverOncePerExpiryAndSettleItOnce() throws Exception {
    int claims = 8;
    int recoverers = 4;
    for (int i = 0; i < claims; i++) {
      // The claims expire quickly; a takeover holds for a second, so that a recoverer that starts
      // late cannot find a claim expired again within the same round.
      claimOfAVanishedNode(batch, ACME, "op-" + i, SHORT_LEASE);
      downstream.apply(downstreamKey(ACME, "op-" + i), false);
    }
    List<LedgerEngine> nodes = new ArrayList<>();
    for (int i = 0; i < recoverers; i++) {
      nodes.add(engine("recoverer-" + i, node(), EngineConfig.builder()));
    }

    // First expiry: every lookup says pending, so each claim is taken over and left in progress.
    downstream.answerByDefault(PENDING);
    awaitAllExpired(claims);
    List<RecoveryReport> first = recoverTogether(nodes);
    for (int i = 0; i < claims; i++) {
      assertThat(fenceOf(store, ACME, key("op-" + i))).isEqualTo(2);
      assertThat(record(ACME, "op-" + i).state()).isEqualTo(OperationState.IN_PROGRESS);
    }
    assertThat(first.stream().mapToInt(RecoveryReport::stillInProgress).sum()).isEqualTo(claims);

    // Second expiry: the lookups find the effects.
    downstream.answerByDefault(TRUTH);
    awaitAllExpired(claims);
    List<RecoveryReport> second = recoverTogether(nodes);

    assertThat(second.stream().mapToInt(RecoveryReport::completed).sum()).isEqualTo(claims);
    for (int i = 0; i < claims; i++) {
      String key = "op-" + i;
      assertThat(record(ACME, key).state()).isEqualTo(OperationState.COMPLETED);
      assertThat(fenceOf(store, ACME, key(key))).isEqualTo(3);
      assertThat(downstream.lookupsFor(downstreamKey(ACME, key))).isEqualTo(2);
      List<HistoryEntry> history = store.history(ACME, key(key));
      assertThat(takeovers(history)).isEqualTo(2);
      assertThat(history).filteredOn(h -> h.to() == OperationState.COMPLETED).hasSize(1);
    }
    assertThat(downstream.performs).isEmpty();
  }

  private void awaitAllExpired(int claims) {
    await(
        "all " + claims + " leases expired by the database's clock",
        () -> store.expiredClaims(1000).size() == claims);
  }

  private List<RecoveryReport> recoverTogether(List<LedgerEngine> nodes) throws Exception {
    CyclicBarrier start = new CyclicBarrier(nodes.size());
    List<CompletableFuture<RecoveryReport>> runs = new ArrayList<>();
    for (LedgerEngine node : nodes) {
      runs.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                return node.recoverExpiredClaims(100);
              },
              callers));
    }
    List<RecoveryReport> reports = new ArrayList<>();
    for (CompletableFuture<RecoveryReport> run : runs) {
      reports.add(run.get(60, TimeUnit.SECONDS));
    }
    return reports;
  }
}
