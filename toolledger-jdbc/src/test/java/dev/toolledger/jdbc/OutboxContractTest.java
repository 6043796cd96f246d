package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.Outbox;
import dev.toolledger.api.OutboxMessage;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.outbox.Deliverer.DeliveryResult;
import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxRelay;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transactional outbox: events stored with the effect that caused them, and relays that deliver
 * them at least once with backoff, dead-lettering and re-arming.
 */
abstract class OutboxContractTest extends StoreContractTest {
  static final DeliveryResult UNAVAILABLE = new DeliveryResult.Retry("HTTP 503", Optional.empty());

  JdbcLedgerStore store;
  EventsTool tool;
  LedgerEngine engine;
  RecordingDeliverer recipient;
  final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void openLedger() {
    store = node(ItemsTool.MIGRATIONS);
    tool = new EventsTool();
    engine =
        LedgerEngine.builder(store, ToolRegistry.of(tool))
            .config(
                EngineConfig.builder()
                    .transactionAttempts(3)
                    .transactionBackoff(Duration.ZERO, Duration.ZERO)
                    .build())
            .build();
    recipient = new RecordingDeliverer();
  }

  @AfterEach
  void stopThreads() throws Exception {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
  }

  ExecutionOutcome create(TenantId tenant, String key, String name, int events) {
    return engine.execute(
        Invocation.of(tenant, key(key), tool.name(), EventsTool.params(name, events)));
  }

  /** The event ids an executed call reports, in the order it enqueued them. */
  static List<String> ids(ExecutionOutcome outcome) {
    assertThat(outcome).isInstanceOf(Executed.class);
    List<String> ids = new ArrayList<>();
    Json.parse(((Executed) outcome).response().body())
        .get("events")
        .forEach(n -> ids.add(n.asText()));
    return ids;
  }

  OutboxRelay.Builder relay(String owner) {
    return OutboxRelay.builder(store, recipient).owner(owner);
  }

  OutboxEvent event(String id) {
    return store.findEvent(id).orElseThrow();
  }

  long items() {
    return queryLong(store, "SELECT COUNT(*) FROM test_items");
  }

  @Test
  void aRelayStoppedInTheMiddleOfItsBatchReleasesTheEventsItDidNotAttempt() throws Exception {
    List<String> ids = ids(create(ACME, "op-1", "a", 4));
    java.util.concurrent.CountDownLatch delivering = new java.util.concurrent.CountDownLatch(1);
    OutboxRelay stopping =
        OutboxRelay.builder(
                store,
                event -> {
                  delivering.countDown();
                  try {
                    Thread.sleep(30_000);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new DeliveryResult.Retry("stopped", Optional.empty());
                  }
                  return new DeliveryResult.Delivered();
                })
            .owner("node-a")
            .batchSize(10)
            .claimLease(Duration.ofMinutes(5))
            .build()
            .start();
    assertThat(delivering.await(20, TimeUnit.SECONDS)).isTrue();

    stopping.close();

    List<OutboxEvent> untouched =
        ids.stream().map(this::event).filter(e -> e.attempts() == 0).toList();
    assertThat(untouched).hasSize(3);
    // The one being delivered counted its interrupted attempt.
    assertThat(ids.stream().map(this::event).filter(e -> e.attempts() == 1)).hasSize(1);
    // Another relay gets the rest now, not when node-a's five-minute claim would have run out.
    List<OutboxEvent> claimed = store.claimDue("node-b/1", Duration.ofMinutes(1), 10);
    assertThat(claimed)
        .extracting(OutboxEvent::id)
        .containsAll(untouched.stream().map(OutboxEvent::id).toList());
  }

  // ------------------------------------------------------------------ enqueueing

  @Test
  void eventsOfATransactionalToolCommitWithItsEffectAndItsRecord() {
    List<String> ids = ids(create(ACME, "op-1", "a", 3));

    assertThat(items()).isEqualTo(1);
    assertThat(store.find(ACME, key("op-1"))).isPresent();
    assertThat(ids).hasSize(3).doesNotHaveDuplicates();
    for (int i = 0; i < ids.size(); i++) {
      OutboxEvent event = event(ids.get(i));
      assertThat(event.state()).isEqualTo(OutboxState.PENDING);
      assertThat(event.tenant()).isEqualTo(ACME);
      assertThat(event.topic()).isEqualTo("item.created");
      assertThat(event.aggregate()).isEqualTo("item:a");
      assertThat(event.destination()).isEqualTo(EventsTool.RECIPIENT);
      assertThat(Json.parse(event.payload())).isEqualTo(Json.object().put("name", "a").put("n", i));
      assertThat(event.attempts()).isZero();
      assertThat(event.lastError()).isEmpty();
      assertThat(event.deliveredAt()).isEmpty();
    }
    assertThat(store.countEvents()).containsEntry(OutboxState.PENDING, 3L);
  }

  @Test
  void eventsOfAToolThatThrowsVanishWithItsEffect() {
    assertThatThrownBy(() -> create(ACME, "op-x", "explode", 2))
        .isInstanceOf(ToolExecutionException.class);

    assertThat(tool.idsPerAttempt).hasSize(1);
    assertThat(tool.idsPerAttempt.get(0)).hasSize(2);
    assertThat(items()).isZero();
    assertThat(queryLong(store, "SELECT COUNT(*) FROM tl_outbox")).isZero();
    assertThat(store.countEvents().values()).containsOnly(0L);
  }

  @Test
  void eventIdsAreStableWhenTheTransactionIsRetriedAndDistinctPerEvent() {
    tool.transientFailures.set(1);

    List<String> ids = ids(create(ACME, "op-1", "a", 3));

    assertThat(tool.idsPerAttempt).hasSize(2);
    assertThat(tool.idsPerAttempt.get(1)).isEqualTo(tool.idsPerAttempt.get(0)).isEqualTo(ids);
    assertThat(ids).doesNotHaveDuplicates();
    assertThat(queryLong(store, "SELECT COUNT(*) FROM tl_outbox")).isEqualTo(3);
    assertThat(items()).isEqualTo(1);
    // Other operations, and the same key in another tenant, get other ids.
    Set<String> all = new HashSet<>(ids);
    all.addAll(ids(create(ACME, "op-2", "a", 3)));
    all.addAll(ids(create(GLOBEX, "op-1", "a", 3)));
    assertThat(all).hasSize(9);
  }

  @Test
  void eventsEnqueuedThroughOneTransactionsOutboxGetDistinctIds() {
    List<String> ids =
        store.inTransaction(
            tx -> {
              Outbox outbox = tx.outbox(ACME, key("op-1"));
              List<String> enqueued = new ArrayList<>();
              for (int i = 0; i < 3; i++) {
                enqueued.add(outbox.enqueue(message("item:1", i)));
              }
              return enqueued;
            });

    assertThat(ids).doesNotHaveDuplicates();
    assertThat(store.countEvents()).containsEntry(OutboxState.PENDING, 3L);
  }

  @Test
  void eventsEnqueuedThroughSeveralOutboxCallsOfOneTransactionGetDistinctIds() {
    List<String> ids =
        store.inTransaction(
            tx ->
                List.of(
                    tx.outbox(ACME, key("op-1")).enqueue(message("item:1", 0)),
                    tx.outbox(ACME, key("op-1")).enqueue(message("item:1", 1))));

    assertThat(ids).doesNotHaveDuplicates();
    assertThat(store.countEvents()).containsEntry(OutboxState.PENDING, 2L);
  }

  static OutboxMessage message(String aggregate, int n) {
    return new OutboxMessage(
        "item.created", aggregate, EventsTool.RECIPIENT, Json.object().put("n", n));
  }

  // ------------------------------------------------------------------ delivering

  @Test
  void deliveredEventsAreMarkedDeliveredAndNotAttemptedAgain() {
    List<String> ids = ids(create(ACME, "op-1", "a", 2));
    OutboxRelay relay = relay("relay-a").build();

    int attempted = relay.runOnce();
    int again = relay.runOnce();

    assertThat(attempted).isEqualTo(2);
    assertThat(again).isZero();
    for (String id : ids) {
      OutboxEvent event = event(id);
      assertThat(event.state()).isEqualTo(OutboxState.DELIVERED);
      assertThat(event.attempts()).isEqualTo(1);
      assertThat(event.deliveredAt()).isPresent();
      assertThat(recipient.attemptsOf(id)).isEqualTo(1);
    }
    assertThat(store.countEvents())
        .containsEntry(OutboxState.DELIVERED, 2L)
        .containsEntry(OutboxState.PENDING, 0L);
  }

  @Test
  void passingFailuresAreRetriedAfterAFullJitterBackoffWithinItsCeiling() {
    String id = ids(create(ACME, "op-1", "a", 1)).get(0);
    recipient.script(id, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE);
    long base = 40;
    long cap = 100;
    OutboxRelay relay =
        relay("relay-a")
            .backoff(Duration.ofMillis(base), Duration.ofMillis(cap))
            .maxAttempts(10)
            .build();

    for (int attempt = 1; attempt <= 3; attempt++) {
      awaitDue(id);
      long before = databaseNow(store);
      assertThat(relay.runOnce()).isEqualTo(1);
      long after = databaseNow(store);

      OutboxEvent event = event(id);
      long ceiling = Math.min(cap, base << (attempt - 1));
      assertThat(event.state()).isEqualTo(OutboxState.PENDING);
      assertThat(event.attempts()).isEqualTo(attempt);
      assertThat(event.lastError()).contains("HTTP 503");
      assertThat(event.nextAttemptAt().toEpochMilli()).isBetween(before, after + ceiling);
    }
    awaitDue(id);
    assertThat(relay.runOnce()).isEqualTo(1);

    OutboxEvent delivered = event(id);
    assertThat(delivered.state()).isEqualTo(OutboxState.DELIVERED);
    assertThat(delivered.attempts()).isEqualTo(4);
    assertThat(delivered.lastError()).isEmpty();
    assertThat(recipient.attemptsOf(id)).isEqualTo(4);
  }

  private void awaitDue(String id) {
    await(
        "event " + id + " is due by the database's clock",
        () -> event(id).nextAttemptAt().toEpochMilli() <= databaseNow(store));
  }

  @Test
  void retryAfterFromTheRecipientIsHonoured() {
    String id = ids(create(ACME, "op-1", "a", 1)).get(0);
    recipient.script(id, new DeliveryResult.Retry("HTTP 429", Optional.of(Duration.ofSeconds(30))));
    OutboxRelay relay = relay("relay-a").backoff(Duration.ZERO, Duration.ZERO).build();

    long before = databaseNow(store);
    relay.runOnce();
    long after = databaseNow(store);

    OutboxEvent event = event(id);
    assertThat(event.state()).isEqualTo(OutboxState.PENDING);
    assertThat(event.nextAttemptAt().toEpochMilli()).isBetween(before + 30_000, after + 30_000);
    assertThat(relay.runOnce()).isZero();
    assertThat(recipient.attemptsOf(id)).isEqualTo(1);
  }

  @Test
  void eventIsDeadAfterMaxAttemptsAndRearmingMakesItDeliverableAgain() {
    String id = ids(create(ACME, "op-1", "a", 1)).get(0);
    recipient.script(
        id, UNAVAILABLE, UNAVAILABLE, new DeliveryResult.Retry("HTTP 502", Optional.empty()));
    OutboxRelay relay =
        relay("relay-a").backoff(Duration.ZERO, Duration.ZERO).maxAttempts(3).build();

    for (int attempt = 1; attempt <= 3; attempt++) {
      awaitDue(id);
      assertThat(relay.runOnce()).isEqualTo(1);
    }

    OutboxEvent dead = event(id);
    assertThat(dead.state()).isEqualTo(OutboxState.DEAD);
    assertThat(dead.attempts()).isEqualTo(3);
    assertThat(dead.lastError()).contains("HTTP 502");
    assertThat(store.listEvents(OutboxState.DEAD, 10))
        .extracting(OutboxEvent::id)
        .containsExactly(id);
    assertThat(store.listEvents(OutboxState.PENDING, 10)).isEmpty();
    assertThat(store.countEvents())
        .containsEntry(OutboxState.DEAD, 1L)
        .containsEntry(OutboxState.PENDING, 0L);
    assertThat(relay.runOnce()).isZero();
    assertThat(recipient.attemptsOf(id)).isEqualTo(3);

    assertThat(store.rearm(id)).isTrue();
    OutboxEvent rearmed = event(id);
    assertThat(rearmed.state()).isEqualTo(OutboxState.PENDING);
    assertThat(rearmed.attempts()).isZero();
    assertThat(store.rearm(id)).isFalse();
    awaitDue(id);
    assertThat(relay.runOnce()).isEqualTo(1);

    assertThat(event(id).state()).isEqualTo(OutboxState.DELIVERED);
    assertThat(store.rearm(id)).isFalse();
  }

  @Test
  void refusedDeliveryIsDeadAtOnce() {
    String id = ids(create(ACME, "op-1", "a", 1)).get(0);
    recipient.script(id, new DeliveryResult.Refused("HTTP 422"));
    OutboxRelay relay = relay("relay-a").maxAttempts(12).build();

    relay.runOnce();

    OutboxEvent dead = event(id);
    assertThat(dead.state()).isEqualTo(OutboxState.DEAD);
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(dead.lastError()).contains("HTTP 422");
    assertThat(store.listEvents(OutboxState.DEAD, 10))
        .extracting(OutboxEvent::id)
        .containsExactly(id);
  }

  @Test
  void laterEventOfTheSameAggregateIsDeliveredWhileAnEarlierOneWaitsForItsRetry() {
    // Documented: the relay does not keep order, not even per aggregate.
    List<String> ids = ids(create(ACME, "op-1", "a", 2));
    String earlier = ids.get(0);
    String later = ids.get(1);
    recipient.script(
        earlier, new DeliveryResult.Retry("HTTP 503", Optional.of(Duration.ofHours(1))));
    OutboxRelay relay = relay("relay-a").build();

    relay.runOnce();

    assertThat(event(earlier).aggregate()).isEqualTo(event(later).aggregate());
    assertThat(event(later).state()).isEqualTo(OutboxState.DELIVERED);
    assertThat(event(earlier).state()).isEqualTo(OutboxState.PENDING);
    assertThat(event(earlier).nextAttemptAt().toEpochMilli()).isGreaterThan(databaseNow(store));
    assertThat(recipient.acknowledged).containsOnlyKeys(later);
  }

  @Test
  void startedRelayDeliversCommittedEventsInTheBackgroundUntilClosed() {
    ids(create(ACME, "op-1", "a", 3));

    try (OutboxRelay relay = relay("relay-a").pollInterval(Duration.ofMillis(20)).build().start()) {
      await("three events delivered", () -> store.countEvents().get(OutboxState.DELIVERED) == 3);
      ids(create(ACME, "op-2", "b", 2));
      await("five events delivered", () -> store.countEvents().get(OutboxState.DELIVERED) == 5);
    }
    ids(create(ACME, "op-3", "c", 1));

    assertThat(store.countEvents())
        .containsEntry(OutboxState.DELIVERED, 5L)
        .containsEntry(OutboxState.PENDING, 1L);
    assertThat(recipient.attempts).hasSize(5);
  }

  // ------------------------------------------------------------------ several relays

  @Test
  void severalRelaysDeliverEveryEventAndNoneTwiceWhileItsClaimIsValid() throws Exception {
    int operations = 30;
    int perOperation = 4;
    for (int i = 0; i < operations; i++) {
      int op = i;
      store.inTransaction(
          tx -> {
            Outbox outbox = tx.outbox(ACME, key("op-" + op));
            for (int n = 0; n < perOperation; n++) {
              outbox.enqueue(message("item:" + op, n));
            }
            return null;
          });
    }
    int events = operations * perOperation;
    int relays = 4;
    CyclicBarrier start = new CyclicBarrier(relays);
    List<Future<Integer>> runs = new ArrayList<>();
    for (int r = 0; r < relays; r++) {
      // Each relay is a node of its own, with its own pool.
      OutboxRelay relay =
          OutboxRelay.builder(node(), recipient)
              .owner("relay-" + r)
              .batchSize(5)
              .claimLease(Duration.ofMinutes(5))
              .build();
      runs.add(
          threads.submit(
              () -> {
                start.await();
                int attempted = 0;
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                while (store.countEvents().get(OutboxState.PENDING) > 0
                    && System.nanoTime() < deadline) {
                  int n = relay.runOnce();
                  attempted += n;
                  if (n == 0) {
                    Thread.sleep(5);
                  }
                }
                return attempted;
              }));
    }
    int attempted = 0;
    for (Future<Integer> run : runs) {
      attempted += run.get(60, TimeUnit.SECONDS);
    }

    assertThat(attempted).isEqualTo(events);
    assertThat(recipient.attempts).hasSize(events);
    assertThat(recipient.acknowledged).hasSize(events);
    assertThat(recipient.acknowledged.values()).allMatch(count -> count.get() == 1);
    Map<OutboxState, Long> counts = store.countEvents();
    assertThat(counts).containsEntry(OutboxState.DELIVERED, (long) events);
    assertThat(store.listEvents(OutboxState.DELIVERED, events)).allMatch(e -> e.attempts() == 1);
  }

  @Test
  void eventWhoseClaimRanOutGoesToAnotherRelayAndTheStalledRelayCannotMarkIt() throws Exception {
    String id = ids(create(ACME, "op-1", "a", 1)).get(0);
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    OutboxRelay slow =
        OutboxRelay.builder(
                store,
                event -> {
                  stalled.countDown();
                  try {
                    goOn.await(60, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return UNAVAILABLE;
                })
            .owner("relay-slow")
            .claimLease(Duration.ofMillis(300))
            .build();
    Future<Integer> slowPass = threads.submit(slow::runOnce);
    assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();
    await(
        "the slow relay's claim ran out by the database's clock",
        () ->
            queryLong(
                    store,
                    "SELECT COUNT(*) FROM tl_outbox WHERE id = ? AND claimed_until < ?",
                    id,
                    databaseNow(store))
                == 1);

    assertThat(relay("relay-fast").build().runOnce()).isEqualTo(1);
    goOn.countDown();
    slowPass.get(30, TimeUnit.SECONDS);

    OutboxEvent event = event(id);
    assertThat(event.state()).isEqualTo(OutboxState.DELIVERED);
    assertThat(event.attempts()).isEqualTo(1);
    assertThat(event.lastError()).isEmpty();
  }
}
