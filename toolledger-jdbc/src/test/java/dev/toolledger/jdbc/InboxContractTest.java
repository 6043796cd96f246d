package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.jdbc.inbox.Inbox;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recipient's inbox: an event id is taken in the recipient's own transaction, so that the
 * effect an event causes happens once however often the event is delivered.
 */
abstract class InboxContractTest extends StoreContractTest {
  static final String EVENT = "evt_0123456789abcdef0123456789abcdef";

  JdbcLedgerStore store;
  final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void openRecipient() {
    store = node(Inbox.migrations(), ItemsTool.MIGRATIONS);
  }

  @AfterEach
  void stopThreads() throws Exception {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
  }

  static boolean firstDelivery(LedgerTransaction tx, String eventId) throws Exception {
    return Inbox.firstDelivery(tx.connection(), eventId, "test-relay", Instant.now());
  }

  /** The effect of an event, in the same transaction as its inbox entry. */
  static void effect(LedgerTransaction tx, String eventId) throws Exception {
    try (PreparedStatement ps =
        tx.connection()
            .prepareStatement("INSERT INTO test_items (tenant, name) VALUES ('acme', ?)")) {
      ps.setString(1, eventId);
      ps.executeUpdate();
    }
  }

  /** Receives a delivery the way a recipient should: the effect only on the first delivery. */
  static boolean receive(JdbcLedgerStore on, String eventId, boolean failAfterEffect) {
    while (true) {
      try {
        return on.inTransaction(
            tx -> {
              boolean first = firstDelivery(tx, eventId);
              if (first) {
                effect(tx, eventId);
              }
              if (failAfterEffect) {
                throw new IllegalStateException("injected failure before commit");
              }
              return first;
            });
      } catch (TransientStoreException e) {
        // The sender would deliver again; so does this test.
      }
    }
  }

  long effects() {
    return queryLong(store, "SELECT COUNT(*) FROM test_items");
  }

  long inboxRows() {
    return queryLong(store, "SELECT COUNT(*) FROM tl_inbox");
  }

  @Test
  void firstDeliveryIsTrueOnceAndFalseForTheSameEventIdAfterwards() {
    List<Boolean> firstTransaction =
        store.inTransaction(tx -> List.of(firstDelivery(tx, EVENT), firstDelivery(tx, EVENT)));
    boolean redelivery = store.inTransaction(tx -> firstDelivery(tx, EVENT));
    boolean otherEvent = store.inTransaction(tx -> firstDelivery(tx, "evt_other"));

    assertThat(firstTransaction).containsExactly(true, false);
    assertThat(redelivery).isFalse();
    assertThat(otherEvent).isTrue();
    assertThat(inboxRows()).isEqualTo(2);
  }

  @Test
  void rolledBackTransactionDoesNotConsumeTheEventId() {
    assertThatThrownBy(() -> receive(store, EVENT, true)).isInstanceOf(IllegalStateException.class);
    assertThat(inboxRows()).isZero();
    assertThat(effects()).isZero();

    assertThat(receive(store, EVENT, false)).isTrue();
    assertThat(receive(store, EVENT, false)).isFalse();
    assertThat(effects()).isEqualTo(1);
  }

  @Test
  void invalidEventIdsAreRefused() {
    assertThatThrownBy(() -> store.inTransaction(tx -> firstDelivery(tx, "")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.inTransaction(tx -> firstDelivery(tx, "evt with spaces")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void concurrentDuplicateDeliveriesOfOneEventProduceExactlyOneEffect() throws Exception {
    List<Boolean> firsts = deliverConcurrently(16, false);

    assertThat(firsts).containsOnlyOnce(true);
    assertThat(effects()).isEqualTo(1);
    assertThat(inboxRows()).isEqualTo(1);
  }

  @Test
  void concurrentDuplicatesOfWhichSomeRollBackStillProduceExactlyOneEffect() throws Exception {
    List<Boolean> committed = deliverConcurrently(16, true);

    assertThat(committed).containsOnlyOnce(true);
    assertThat(effects()).isEqualTo(1);
    assertThat(inboxRows()).isEqualTo(1);
  }

  /**
   * Delivers one event from {@code deliveries} threads at once, on two recipient nodes.
   *
   * @param everyOtherFails whether every other delivery fails before its commit
   * @return what each committed delivery's firstDelivery said
   */
  private List<Boolean> deliverConcurrently(int deliveries, boolean everyOtherFails)
      throws Exception {
    JdbcLedgerStore[] nodes = {store, node(Inbox.migrations(), ItemsTool.MIGRATIONS)};
    CyclicBarrier start = new CyclicBarrier(deliveries);
    List<Future<Boolean>> futures = new ArrayList<>();
    for (int i = 0; i < deliveries; i++) {
      JdbcLedgerStore on = nodes[i % 2];
      boolean fails = everyOtherFails && i % 4 < 2;
      futures.add(
          threads.submit(
              () -> {
                start.await();
                try {
                  return receive(on, EVENT, fails);
                } catch (IllegalStateException e) {
                  return null;
                }
              }));
    }
    List<Boolean> committed = new ArrayList<>();
    for (Future<Boolean> future : futures) {
      Boolean first = future.get(60, TimeUnit.SECONDS);
      if (first != null) {
        committed.add(first);
      }
    }
    assertThat(committed).hasSize(everyOtherFails ? deliveries / 2 : deliveries);
    return committed;
  }
}
