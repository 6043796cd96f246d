package dev.toolledger.jdbc;

import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_LOSE_RESPONSE;
import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_PAUSE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.NotExecuted;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.engine.ResolveOutcome;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Resolving keys: a caller that gives up fences a key never seen; an operator settles an UNKNOWN
 * operation; nothing else can be overwritten by a resolution.
 */
abstract class ResolveContractTest extends StoreContractTest {
  static final String OPERATOR = "token:ops-1";

  JdbcLedgerStore store;
  ItemsTool items;
  FakeDownstream downstream;
  DownstreamTool plain;
  LedgerEngine engine;
  final ExecutorService callers = Executors.newCachedThreadPool();

  @BeforeEach
  void openLedger() {
    store = node(ItemsTool.MIGRATIONS);
    items = new ItemsTool();
    downstream = new FakeDownstream();
    plain = DownstreamTool.plain("send-plain", downstream, Duration.ofSeconds(30));
    engine =
        LedgerEngine.builder(store, ToolRegistry.of(items, plain))
            .config(EngineConfig.builder().nodeId("node-a").maxWait(Duration.ofMillis(100)).build())
            .build();
  }

  @AfterEach
  void stopCallers() throws Exception {
    downstream.resume.countDown();
    callers.shutdownNow();
    callers.awaitTermination(30, TimeUnit.SECONDS);
  }

  ExecutionOutcome createItem(TenantId tenant, String key) {
    return engine.execute(
        Invocation.of(tenant, key(key), "create-item", Json.parse("{\"name\":\"a\"}")));
  }

  ExecutionOutcome send(TenantId tenant, String key) {
    return engine.execute(
        Invocation.of(tenant, key(key), plain.name(), DownstreamTool.params("someone")));
  }

  ResolveOutcome resolve(TenantId tenant, String key, Resolution resolution) {
    return engine.resolve(tenant, OperationKey.of(key), resolution, OPERATOR);
  }

  /** An operation whose effect's answer was lost, by a tool that cannot find out: UNKNOWN. */
  void unknownOperation(TenantId tenant, String key) {
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);
    assertThat(send(tenant, key)).isInstanceOf(OutcomeUnknown.class);
  }

  long items() {
    return queryLong(store, "SELECT COUNT(*) FROM test_items");
  }

  @Test
  void inquiryOnAKeyNeverSeenFencesItAndALaterTransactionalRequestIsRefusedWithoutRunning() {
    ResolveOutcome outcome = resolve(ACME, "op-gone", new Resolution.Inquiry());

    assertThat(outcome).isInstanceOf(ResolveOutcome.Fenced.class);
    OperationRecord fence = ((ResolveOutcome.Fenced) outcome).record();
    assertThat(fence.state()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(fence.intent()).isEmpty();
    ExecutionOutcome late = createItem(ACME, "op-gone");
    assertThat(late).isInstanceOf(NotExecuted.class);
    assertThat(items.executions).hasValue(0);
    assertThat(items()).isZero();
    List<HistoryEntry> history = engine.history(ACME, key("op-gone"));
    assertThat(history).hasSize(1);
    assertThat(history.get(0).to()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(history.get(0).actor()).isEqualTo(OPERATOR);
    assertThat(history.get(0).cause()).contains("fenced");
  }

  @Test
  void inquiryOnAKeyNeverSeenFencesItAndALaterExternalRequestIsRefusedWithoutPerforming() {
    assertThat(resolve(ACME, "op-gone", new Resolution.Inquiry()))
        .isInstanceOf(ResolveOutcome.Fenced.class);

    ExecutionOutcome late = send(ACME, "op-gone");

    assertThat(late).isInstanceOf(NotExecuted.class);
    assertThat(downstream.performs).isEmpty();
    assertThat(store.find(ACME, key("op-gone")).orElseThrow().intent()).isEmpty();
  }

  @Test
  void inquiryFencesTheKeyInItsOwnTenantOnly() {
    assertThat(resolve(GLOBEX, "op-1", new Resolution.Inquiry()))
        .isInstanceOf(ResolveOutcome.Fenced.class);

    assertThat(createItem(ACME, "op-1")).isInstanceOf(Executed.class);
    assertThat(createItem(GLOBEX, "op-1")).isInstanceOf(NotExecuted.class);
  }

  @Test
  void inquiryOnAKeyWhoseClaimIsReleasedMeanwhileFencesIt() {
    // A claim holds the key when the inquiry tries to fence it; its executor releases it (the
    // tool reported that nothing happened) before the inquiry reads the key back.
    JsonNode params = DownstreamTool.params("someone");
    ClaimResult claim =
        store.inTransaction(
            tx ->
                tx.claimLeased(
                    new NewOperation(ACME, key("op-r"), plain.intent(params), Instant.now()),
                    new LeaseClaim("node-b", Duration.ofSeconds(30), Json.write(params)),
                    Duration.ofSeconds(5)));
    assertThat(claim).isEqualTo(new ClaimResult.Claimed(1));
    InterleavingStore racing = new InterleavingStore(store);
    LedgerEngine inquirer = LedgerEngine.builder(racing, ToolRegistry.of(items, plain)).build();
    racing.beforeNextFind(
        () -> {
          boolean released = store.inTransaction(tx -> tx.release(ACME, key("op-r"), 1));
          assertThat(released).isTrue();
        });

    ResolveOutcome outcome =
        inquirer.resolve(ACME, key("op-r"), new Resolution.Inquiry(), OPERATOR);

    assertThat(outcome).isInstanceOf(ResolveOutcome.Fenced.class);
    assertThat(send(ACME, "op-r")).isInstanceOf(NotExecuted.class);
    assertThat(downstream.performs).isEmpty();
  }

  @Test
  void inquiryOnAKnownKeyReportsItAndChangesNothing() throws Exception {
    createItem(ACME, "op-done");
    unknownOperation(ACME, "op-unknown");
    downstream.script(EFFECT_THEN_PAUSE);
    Future<ExecutionOutcome> running = callers.submit(() -> send(ACME, "op-running"));
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();

    for (String key : List.of("op-done", "op-unknown", "op-running")) {
      OperationRecord before = store.find(ACME, key(key)).orElseThrow();
      List<HistoryEntry> history = engine.history(ACME, key(key));

      ResolveOutcome outcome = resolve(ACME, key, new Resolution.Inquiry());

      assertThat(outcome).isEqualTo(new ResolveOutcome.Current(before));
      assertThat(store.find(ACME, key(key))).contains(before);
      assertThat(engine.history(ACME, key(key))).isEqualTo(history);
    }
    downstream.resume.countDown();
    assertThat(running.get(30, TimeUnit.SECONDS)).isInstanceOf(Executed.class);
    assertThat(createItem(ACME, "op-done")).isInstanceOf(Replayed.class);
  }

  @Test
  void markCompletedResolvesAnUnknownOperationAndRetriesReplayTheOperatorsResponse() {
    unknownOperation(ACME, "op-u");
    StoredResponse confirmed = new StoredResponse(201, "{\"receipt\":\"r-from-the-operator\"}");

    ResolveOutcome outcome =
        resolve(ACME, "op-u", new Resolution.MarkCompleted(confirmed, "confirmed by the carrier"));

    assertThat(outcome).isInstanceOf(ResolveOutcome.Resolved.class);
    OperationRecord record = ((ResolveOutcome.Resolved) outcome).record();
    assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(record.response()).contains(confirmed);
    assertThat(record.expiresAt()).isPresent();
    HistoryEntry last = lastOf(engine.history(ACME, key("op-u")));
    assertThat(last.from()).contains(OperationState.UNKNOWN);
    assertThat(last.to()).isEqualTo(OperationState.COMPLETED);
    assertThat(last.actor()).isEqualTo(OPERATOR);
    assertThat(last.cause()).contains("confirmed by the carrier");
    ExecutionOutcome retry = send(ACME, "op-u");
    assertThat(retry).isInstanceOf(Replayed.class);
    assertThat(((Replayed) retry).response()).isEqualTo(confirmed);
    assertThat(downstream.performs).hasSize(1);
  }

  @Test
  void markNotExecutedResolvesAnUnknownOperationAndRetriesAreRefused() {
    unknownOperation(ACME, "op-u");

    ResolveOutcome outcome =
        resolve(ACME, "op-u", new Resolution.MarkNotExecuted("the carrier has no such parcel"));

    assertThat(outcome).isInstanceOf(ResolveOutcome.Resolved.class);
    assertThat(((ResolveOutcome.Resolved) outcome).record().state())
        .isEqualTo(OperationState.NOT_EXECUTED);
    HistoryEntry last = lastOf(engine.history(ACME, key("op-u")));
    assertThat(last.to()).isEqualTo(OperationState.NOT_EXECUTED);
    assertThat(last.actor()).isEqualTo(OPERATOR);
    assertThat(send(ACME, "op-u")).isInstanceOf(NotExecuted.class);
    assertThat(downstream.performs).hasSize(1);
  }

  @Test
  void explicitResolutionOfAnOperationThatIsNotUnknownIsNotResolvableAndChangesNothing()
      throws Exception {
    createItem(ACME, "op-done");
    resolve(ACME, "op-fenced", new Resolution.Inquiry());
    downstream.script(EFFECT_THEN_PAUSE);
    Future<ExecutionOutcome> running = callers.submit(() -> send(ACME, "op-running"));
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();
    StoredResponse fake = new StoredResponse(200, "{}");

    for (String key : List.of("op-done", "op-fenced", "op-running")) {
      OperationRecord before = store.find(ACME, key(key)).orElseThrow();
      List<HistoryEntry> history = engine.history(ACME, key(key));

      ResolveOutcome completed = resolve(ACME, key, new Resolution.MarkCompleted(fake, "guess"));
      ResolveOutcome notExecuted = resolve(ACME, key, new Resolution.MarkNotExecuted("guess"));

      assertThat(completed).isEqualTo(new ResolveOutcome.NotResolvable(before));
      assertThat(notExecuted).isEqualTo(new ResolveOutcome.NotResolvable(before));
      assertThat(store.find(ACME, key(key))).contains(before);
      assertThat(engine.history(ACME, key(key))).isEqualTo(history);
    }
    downstream.resume.countDown();
    assertThat(running.get(30, TimeUnit.SECONDS)).isInstanceOf(Executed.class);
  }

  @Test
  void explicitResolutionOfAMissingKeyHasNothingToResolveAndRecordsNothing() {
    unknownOperation(ACME, "op-u");

    ResolveOutcome missing =
        resolve(ACME, "op-missing", new Resolution.MarkNotExecuted("no such key"));
    ResolveOutcome otherTenant =
        resolve(GLOBEX, "op-u", new Resolution.MarkNotExecuted("not mine"));

    assertThat(missing).isEqualTo(new ResolveOutcome.NothingToResolve());
    assertThat(otherTenant).isEqualTo(new ResolveOutcome.NothingToResolve());
    assertThat(store.find(ACME, key("op-missing"))).isEmpty();
    assertThat(engine.history(ACME, key("op-missing"))).isEmpty();
    assertThat(store.find(ACME, key("op-u")).orElseThrow().state())
        .isEqualTo(OperationState.UNKNOWN);
  }

  static HistoryEntry lastOf(List<HistoryEntry> history) {
    assertThat(history).isNotEmpty();
    return history.get(history.size() - 1);
  }
}
