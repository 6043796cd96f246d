package dev.toolledger.jdbc;

import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_LOSE_RESPONSE;
import static dev.toolledger.jdbc.FakeDownstream.Step.EFFECT_THEN_PAUSE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.ops.Attention;
import dev.toolledger.jdbc.ops.OperationCatalog;
import dev.toolledger.jdbc.ops.OperationFilter;
import dev.toolledger.jdbc.ops.OperationSummary;
import dev.toolledger.jdbc.ops.StateCount;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an operator reads: operations listed by state, tenant, tool and key, counted by state and
 * tool, and the counts that need attention (UNKNOWN, long IN_PROGRESS, the outbox's depth and its
 * DEAD events).
 */
abstract class OperationCatalogContractTest extends StoreContractTest {
  JdbcLedgerStore store;
  OperationCatalog catalog;
  ItemsTool items;
  EventsTool events;
  FakeDownstream downstream;
  DownstreamTool plain;
  LedgerEngine engine;
  final ExecutorService callers = Executors.newCachedThreadPool();

  @BeforeEach
  void openLedger() {
    store = node(ItemsTool.MIGRATIONS);
    catalog = OperationCatalog.of(store);
    items = new ItemsTool();
    events = new EventsTool();
    downstream = new FakeDownstream();
    plain = DownstreamTool.plain("send-plain", downstream, Duration.ofSeconds(30));
    engine =
        LedgerEngine.builder(store, ToolRegistry.of(items, events, plain))
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

  static List<String> keys(List<OperationSummary> rows) {
    return rows.stream().map(row -> row.tenant() + "/" + row.key().value()).toList();
  }

  /** Three completed items, an UNKNOWN mail, a fence and a mail still being performed. */
  Future<ExecutionOutcome> aLedgerWithEveryState() throws Exception {
    createItem(ACME, "item-1");
    createItem(ACME, "item-2");
    createItem(GLOBEX, "item-1");
    downstream.script(EFFECT_THEN_LOSE_RESPONSE);
    assertThat(send(ACME, "mail-lost")).isInstanceOf(ExecutionOutcome.OutcomeUnknown.class);
    engine.resolve(GLOBEX, key("gave-up"), new Resolution.Inquiry(), "token:t1");
    downstream.script(EFFECT_THEN_PAUSE);
    Future<ExecutionOutcome> running = callers.submit(() -> send(GLOBEX, "mail-running"));
    assertThat(downstream.paused.await(30, TimeUnit.SECONDS)).isTrue();
    return running;
  }

  @Test
  void listsByStateTenantToolAndKey() throws Exception {
    aLedgerWithEveryState();

    assertThat(keys(catalog.list(OperationFilter.builder().build()))).hasSize(6);
    assertThat(keys(catalog.list(OperationFilter.builder().state(OperationState.UNKNOWN).build())))
        .containsExactly("acme/mail-lost");
    assertThat(
            keys(catalog.list(OperationFilter.builder().state(OperationState.IN_PROGRESS).build())))
        .containsExactly("globex/mail-running");
    assertThat(
            keys(
                catalog.list(OperationFilter.builder().state(OperationState.NOT_EXECUTED).build())))
        .containsExactly("globex/gave-up");
    assertThat(keys(catalog.list(OperationFilter.builder().tenant(ACME).build())))
        .containsExactlyInAnyOrder("acme/item-1", "acme/item-2", "acme/mail-lost");
    assertThat(keys(catalog.list(OperationFilter.builder().tool("create-item").build())))
        .containsExactlyInAnyOrder("acme/item-1", "acme/item-2", "globex/item-1");
    assertThat(keys(catalog.list(OperationFilter.builder().key(key("item-1")).build())))
        .containsExactlyInAnyOrder("acme/item-1", "globex/item-1");
    assertThat(
            keys(catalog.list(OperationFilter.builder().key(key("item-1")).tenant(GLOBEX).build())))
        .containsExactly("globex/item-1");
    assertThat(catalog.list(OperationFilter.builder().tenant(TenantId.of("nobody")).build()))
        .isEmpty();
  }

  @Test
  void summariesCarryStateOutcomeStatusAndTheClaimOfARunningOperation() throws Exception {
    aLedgerWithEveryState();

    OperationSummary done =
        catalog.list(OperationFilter.builder().tenant(ACME).key(key("item-1")).build()).get(0);
    assertThat(done.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(done.tool()).contains("create-item");
    assertThat(done.status()).contains(201);
    assertThat(done.completedAt()).isPresent();

    OperationSummary running =
        catalog.list(OperationFilter.builder().state(OperationState.IN_PROGRESS).build()).get(0);
    // The owner is the node name plus the claim's own nonce (see JdbcTransaction): the nonce is
    // what lets a node recognise its own claim after a lost COMMIT acknowledgement.
    assertThat(running.owner())
        .hasValueSatisfying(owner -> assertThat(owner).startsWith("node-a/"));
    assertThat(running.leaseUntil()).isPresent();
    assertThat(running.status()).isEmpty();

    OperationSummary fence =
        catalog.list(OperationFilter.builder().state(OperationState.NOT_EXECUTED).build()).get(0);
    assertThat(fence.tool()).isEmpty();
  }

  @Test
  void listsNewestFirstByDefaultOldestFirstOnRequestAndStopsAtTheLimit() throws Exception {
    for (int i = 1; i <= 5; i++) {
      createItem(ACME, "op-" + i);
      // Distinct creation times, a millisecond apart at least, so that the order is defined. The
      // ledger stores milliseconds while Instant.now() has microseconds: compare milliseconds.
      long created = store.find(ACME, key("op-" + i)).orElseThrow().createdAt().toEpochMilli();
      await(
          "the clock moved past " + created + " ms", () -> Instant.now().toEpochMilli() > created);
    }

    assertThat(keys(catalog.list(OperationFilter.builder().limit(2).build())))
        .containsExactly("acme/op-5", "acme/op-4");
    assertThat(keys(catalog.list(OperationFilter.builder().oldestFirst(true).limit(2).build())))
        .containsExactly("acme/op-1", "acme/op-2");
  }

  @Test
  void countsByStateAndTool() throws Exception {
    aLedgerWithEveryState();

    assertThat(catalog.countByStateAndTool())
        .containsExactlyInAnyOrder(
            new StateCount(OperationState.COMPLETED, Optional.of("create-item"), 3),
            new StateCount(OperationState.UNKNOWN, Optional.of("send-plain"), 1),
            new StateCount(OperationState.IN_PROGRESS, Optional.of("send-plain"), 1),
            new StateCount(OperationState.NOT_EXECUTED, Optional.empty(), 1));
  }

  @Test
  void attentionCountsUnknownStaleInProgressPendingAndDeadEvents() throws Exception {
    aLedgerWithEveryState();
    engine.execute(
        Invocation.of(ACME, key("ev-1"), events.name(), EventsTool.params("with-events", 3)));
    List<OutboxEvent> claimed = store.claimDue("relay-a", Duration.ofSeconds(30), 1);
    assertThat(claimed).hasSize(1);
    assertThat(store.markDead(claimed.get(0).id(), "relay-a", "refused")).isTrue();

    Attention soon = catalog.attention(Instant.now().minus(Duration.ofHours(1)));
    Attention later = catalog.attention(Instant.now().plus(Duration.ofHours(1)));

    assertThat(soon).isEqualTo(new Attention(1, 0, 2, 1));
    assertThat(later).isEqualTo(new Attention(1, 1, 2, 1));
  }

  @Test
  void anEmptyLedgerNeedsNoAttention() {
    assertThat(catalog.attention(Instant.now())).isEqualTo(new Attention(0, 0, 0, 0));
    assertThat(catalog.countByStateAndTool()).isEmpty();
    assertThat(catalog.list(OperationFilter.builder().build())).isEmpty();
  }
}
