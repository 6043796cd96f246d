package dev.toolledger.jdbc;

import static dev.toolledger.jdbc.FakeDownstream.Answer.FAIL;
import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_LOSE_RESPONSE;
import static dev.toolledger.jdbc.FakeDownstream.Step.FAIL_BEFORE_EFFECT;
import static dev.toolledger.jdbc.FakeDownstream.Step.NOT_DONE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.EffectContext;
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
import dev.toolledger.core.engine.ExecutionOutcome.ToolUnavailable;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.RecoveryReport;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Effects outside the ledger's database, on the request path: claim with a lease, perform outside
 * any transaction, record under the fencing token; and what the engine does when it cannot know
 * whether the effect happened.
 */
abstract class ExternalEffectContractTest extends StoreContractTest {
  static final Duration LEASE = Duration.ofMillis(300);

  JdbcLedgerStore store;
  FakeDownstream downstream;
  DownstreamTool plain;
  DownstreamTool lookup;
  DownstreamTool idempotent;
  LedgerEngine engine;

  @BeforeEach
  void openLedger() {
    store = node();
    downstream = new FakeDownstream();
    plain = DownstreamTool.plain("send-plain", downstream, LEASE);
    lookup = DownstreamTool.withLookup("send-lookup", downstream, LEASE);
    idempotent = DownstreamTool.idempotent("send-idempotent", downstream, LEASE);
    engine = engine("node-a", Duration.ofMillis(200));
  }

  LedgerEngine engine(String node, Duration maxWait) {
    return LedgerEngine.builder(store, ToolRegistry.of(plain, lookup, idempotent))
        .config(EngineConfig.builder().nodeId(node).maxWait(maxWait).build())
        .downstreamKeys(KEYS)
        .build();
  }

  ExecutionOutcome call(DownstreamTool tool, TenantId tenant, String key) {
    return engine.execute(
        Invocation.of(tenant, key(key), tool.name(), DownstreamTool.params("someone")));
  }

  /** The installation's downstream keys in these tests, so that a test can predict them. */
  static final DownstreamKeys KEYS = DownstreamKeys.of(new byte[32]);

  static String downstreamKey(TenantId tenant, String key) {
    return KEYS.derive(tenant, OperationKey.of(key));
  }

  OperationRecord record(TenantId tenant, String key) {
    return engine.lookup(tenant, key(key)).orElseThrow();
  }

  static StoredResponse stored(ToolResponse response) {
    return new StoredResponse(response.status(), Json.write(response.body()));
  }

  @Test
  void externalEffectIsExecutedOnceAndItsRetryReplaysWithoutPerformingAgain() {
    ExecutionOutcome first = call(plain, ACME, "op-1");
    ExecutionOutcome retry = call(plain, ACME, "op-1");

    assertThat(first).isInstanceOf(Executed.class);
    StoredResponse response = ((Executed) first).response();
    assertThat(response).isEqualTo(stored(downstream.effects(downstreamKey(ACME, "op-1")).get(0)));
    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(((Replayed) retry).response()).isEqualTo(response);
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.totalEffects()).isEqualTo(1);

    List<HistoryEntry> history = engine.history(ACME, key("op-1"));
    assertThat(history).hasSize(2);
    assertThat(history.get(0).from()).isEmpty();
    assertThat(history.get(0).to()).isEqualTo(OperationState.IN_PROGRESS);
    assertThat(history.get(0).fence()).isEqualTo(1);
    assertThat(history.get(0).actor()).isEqualTo("node:node-a");
    assertThat(history.get(1).from()).contains(OperationState.IN_PROGRESS);
    assertThat(history.get(1).to()).isEqualTo(OperationState.COMPLETED);
    assertThat(history.get(1).fence()).isEqualTo(1);

    OperationRecord record = record(ACME, "op-1");
    assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(record.completedAt()).isPresent();
    assertThat(record.expiresAt()).isPresent();
    // A completed operation keeps neither its lease nor its parameters.
    assertThat(
            queryLong(
                store,
                "SELECT COUNT(*) FROM tl_operations WHERE op_key = 'op-1' AND owner IS NULL"
                    + " AND lease_until IS NULL AND parameters IS NULL"))
        .isEqualTo(1);
  }

  @Test
  void claimWhoseCommitAcknowledgementWasLostIsRecognisedAsOwnAndPerformedOnce() {
    // The claim's COMMIT lands, then the connection drops before its acknowledgement: the engine
    // retries the claim transaction and must find its own claim, not wait for a stranger's.
    AtomicInteger transactions = new AtomicInteger();
    LedgerStore dropsFirstAcknowledgement =
        new InterleavingStore(store) {
          @Override
          public <T> T inTransaction(TransactionWork<T> work) {
            T result = super.inTransaction(work);
            if (transactions.incrementAndGet() == 1) {
              throw new TransientStoreException(
                  "connection lost after COMMIT", new java.sql.SQLException("gone", "08006"));
            }
            return result;
          }
        };
    LedgerEngine flaky =
        LedgerEngine.builder(dropsFirstAcknowledgement, ToolRegistry.of(plain, lookup, idempotent))
            .config(EngineConfig.builder().nodeId("node-a").maxWait(Duration.ofMillis(200)).build())
            .downstreamKeys(KEYS)
            .build();

    ExecutionOutcome outcome =
        flaky.execute(
            Invocation.of(ACME, key("op-ack"), plain.name(), DownstreamTool.params("someone")));

    assertThat(outcome).isInstanceOf(Executed.class);
    assertThat(downstream.performs).hasSize(1);
    assertThat(record(ACME, "op-ack").state()).isEqualTo(OperationState.COMPLETED);
  }

  @Test
  void downstreamKeyIsStableAcrossRetriesAndTakeoversDistinctPerTenantAndNotTheOperationKey() {
    // 1: the downstream refuses before acting; the key is released and the caller retries.
    // 2: the retry's answer is lost; 3: performing again times out; 4: recovery performs again.
    downstream.script(NOT_DONE, EFFECT_THEN_LOSE_RESPONSE, FAIL_BEFORE_EFFECT);

    assertThat(call(idempotent, ACME, "op-k")).isInstanceOf(ToolUnavailable.class);
    assertThat(call(idempotent, ACME, "op-k")).isInstanceOf(InProgress.class);
    awaitLeaseExpiry(store, ACME, key("op-k"));
    RecoveryReport report = engine("node-b", Duration.ZERO).recoverExpiredClaims(10);
    assertThat(report.completed()).isEqualTo(1);
    assertThat(call(idempotent, GLOBEX, "op-k")).isInstanceOf(Executed.class);

    List<EffectContext> performs = downstream.performs;
    assertThat(performs).hasSize(5);
    String acmeKey = performs.get(0).downstreamKey();
    assertThat(performs.subList(0, 4))
        .extracting(EffectContext::downstreamKey)
        .containsOnly(acmeKey);
    assertThat(performs.subList(0, 4))
        .extracting(EffectContext::fence)
        .containsExactly(1L, 1L, 1L, 2L);
    assertThat(performs.get(4).downstreamKey()).isNotEqualTo(acmeKey);
    assertThat(performs.get(4).tenant()).isEqualTo(GLOBEX);
    assertThat(acmeKey).isEqualTo(downstreamKey(ACME, "op-k")).doesNotContain("op-k");
    assertThat(downstream.effects(acmeKey)).hasSize(1);
    assertThat(record(ACME, "op-k").state()).isEqualTo(OperationState.COMPLETED);
  }

  @Test
  void uncertainEffectWithoutLookupOrIdempotentDownstreamIsUnknownForEveryRetry() {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);

    ExecutionOutcome first = call(plain, ACME, "op-u");
    List<ExecutionOutcome> retries = List.of(call(plain, ACME, "op-u"), call(plain, ACME, "op-u"));

    assertThat(first).isInstanceOf(OutcomeUnknown.class);
    assertThat(retries).allMatch(OutcomeUnknown.class::isInstance);
    assertThat(downstream.performs).hasSize(1);
    OperationRecord record = record(ACME, "op-u");
    assertThat(record.state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(record.response()).isEmpty();
    // UNKNOWN is never swept: it waits for a human or a business process.
    assertThat(record.expiresAt()).isEmpty();
    HistoryEntry last = last(engine.history(ACME, key("op-u")));
    assertThat(last.to()).isEqualTo(OperationState.UNKNOWN);
    assertThat(last.cause())
        .contains("failed with a timeout")
        .doesNotContain("Exception")
        .contains("unknown");
    // Recovery has nothing to take over: UNKNOWN is not a claim.
    assertThat(store.expiredClaims(10)).isEmpty();
  }

  @Test
  void uncertainEffectThatLookupFindsIsCompletedWithTheDownstreamsOutcome() {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);

    ExecutionOutcome first = call(lookup, ACME, "op-l");
    ExecutionOutcome retry = call(lookup, ACME, "op-l");

    ToolResponse effect = downstream.effects(downstreamKey(ACME, "op-l")).get(0);
    assertThat(first).isInstanceOf(Executed.class);
    assertThat(((Executed) first).response()).isEqualTo(stored(FakeDownstream.lookedUp(effect)));
    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(((Replayed) retry).response()).isEqualTo(((Executed) first).response());
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.lookups).hasSize(1);
    assertThat(downstream.totalEffects()).isEqualTo(1);
    assertThat(last(engine.history(ACME, key("op-l"))).cause()).contains("lookup found the effect");
  }

  @Test
  void uncertainEffectThatLookupFindsAbsentIsNotExecutedAndStaysSo() {
    downstream.script(FAIL_BEFORE_EFFECT);

    ExecutionOutcome first = call(lookup, ACME, "op-a");
    ExecutionOutcome retry = call(lookup, ACME, "op-a");

    assertThat(first).isInstanceOf(NotExecuted.class);
    assertThat(retry).isInstanceOf(NotExecuted.class);
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.totalEffects()).isZero();
    OperationRecord record = record(ACME, "op-a");
    assertThat(record.state()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(record.expiresAt()).isPresent();
  }

  @ParameterizedTest
  @EnumSource(
      value = FakeDownstream.Answer.class,
      names = {"FAIL", "PENDING"})
  void uncertainEffectWhoseLookupCannotSettleItStaysInProgressUntilRecovery(
      FakeDownstream.Answer answer) {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);
    downstream.answer(answer);

    ExecutionOutcome first = call(lookup, ACME, "op-p");
    ExecutionOutcome retry = call(lookup, ACME, "op-p");

    assertThat(first).isInstanceOf(InProgress.class);
    assertThat(retry).isInstanceOf(InProgress.class);
    assertThat(record(ACME, "op-p").state()).isEqualTo(OperationState.IN_PROGRESS);
    assertThat(last(engine.history(ACME, key("op-p"))).cause())
        .contains(answer == FAIL ? "lookup failed" : "still pending")
        .contains("left in progress");

    awaitLeaseExpiry(store, ACME, key("op-p"));
    // Until recovery runs, the claim is kept as it is: never deleted, never guessed.
    assertThat(record(ACME, "op-p").state()).isEqualTo(OperationState.IN_PROGRESS);
    RecoveryReport report = engine("node-b", Duration.ZERO).recoverExpiredClaims(10);

    assertThat(report.completed()).isEqualTo(1);
    ExecutionOutcome afterRecovery = call(lookup, ACME, "op-p");
    assertThat(afterRecovery).isInstanceOf(Replayed.class);
    ToolResponse effect = downstream.effects(downstreamKey(ACME, "op-p")).get(0);
    assertThat(((Replayed) afterRecovery).response())
        .isEqualTo(stored(FakeDownstream.lookedUp(effect)));
    assertThat(downstream.performs).hasSize(1);
    assertThat(downstream.lookups).hasSize(2);
    assertThat(fenceOf(store, ACME, key("op-p"))).isEqualTo(2);
  }

  @Test
  void uncertainEffectOnAnIdempotentDownstreamIsPerformedAgainWithTheSameKeyAndCompletesOnce() {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);

    ExecutionOutcome first = call(idempotent, ACME, "op-i");
    ExecutionOutcome retry = call(idempotent, ACME, "op-i");

    String downstreamKey = downstreamKey(ACME, "op-i");
    assertThat(first).isInstanceOf(Executed.class);
    assertThat(((Executed) first).response())
        .isEqualTo(stored(downstream.effects(downstreamKey).get(0)));
    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(downstream.performs)
        .extracting(EffectContext::downstreamKey)
        .containsExactly(downstreamKey, downstreamKey);
    assertThat(downstream.effects(downstreamKey)).hasSize(1);
    assertThat(last(engine.history(ACME, key("op-i"))).cause())
        .contains("performed again with the same downstream key");
  }

  @Test
  void notDoneReleasesTheClaimExplainsItInTheHistoryAndTheSameKeyThenExecutes() {
    downstream.script(NOT_DONE);

    ExecutionOutcome first = call(plain, ACME, "op-n");

    assertThat(first).isInstanceOf(ToolUnavailable.class);
    assertThat(((ToolUnavailable) first).reason()).contains("refused before acting");
    assertThat(engine.lookup(ACME, key("op-n"))).isEmpty();
    assertThat(queryLong(store, "SELECT COUNT(*) FROM tl_operations")).isZero();
    List<HistoryEntry> released = engine.history(ACME, key("op-n"));
    assertThat(released)
        .extracting(HistoryEntry::to)
        .containsExactly(OperationState.IN_PROGRESS, OperationState.NOT_EXECUTED);
    assertThat(released.get(1).cause()).contains("claim released").contains("may be retried");

    ExecutionOutcome retry = call(plain, ACME, "op-n");

    assertThat(retry).isInstanceOf(Executed.class);
    assertThat(downstream.performs).hasSize(2);
    assertThat(downstream.totalEffects()).isEqualTo(1);
    assertThat(engine.history(ACME, key("op-n")))
        .extracting(HistoryEntry::to)
        .containsExactly(
            OperationState.IN_PROGRESS,
            OperationState.NOT_EXECUTED,
            OperationState.IN_PROGRESS,
            OperationState.COMPLETED);
    // Another tenant learns nothing about this key.
    assertThat(engine.history(GLOBEX, key("op-n"))).isEmpty();
  }

  @Test
  void concurrentIdenticalRequestsPerformTheEffectOnce() throws Exception {
    LedgerEngine patient = engine("node-a", Duration.ofSeconds(10));
    int threads = 16;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<ExecutionOutcome>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return patient.execute(
                      Invocation.of(
                          ACME, key("op-race"), plain.name(), DownstreamTool.params("someone")));
                }));
      }
      int executed = 0;
      for (Future<ExecutionOutcome> future : futures) {
        ExecutionOutcome outcome = future.get(60, TimeUnit.SECONDS);
        if (outcome instanceof Executed) {
          executed++;
        } else {
          assertThat(outcome).isInstanceOfAny(Replayed.class, InProgress.class);
        }
      }
      assertThat(executed).isEqualTo(1);
      assertThat(downstream.performs).hasSize(1);
      assertThat(downstream.totalEffects()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  static HistoryEntry last(List<HistoryEntry> history) {
    assertThat(history).isNotEmpty();
    return history.get(history.size() - 1);
  }
}
