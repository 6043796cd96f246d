package dev.toolledger.core.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.outbox.Deliverer.DeliveryResult;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.LongSummaryStatistics;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The relay's backoff alone; the store contract tests cover it against real databases. */
class OutboxRelayBackoffTest {
  private static final Duration BASE = Duration.ofSeconds(1);
  private static final Duration CAP = Duration.ofMinutes(5);

  private static OutboxRelay relay() {
    // The backoff never touches the store.
    OutboxStore unused =
        (OutboxStore)
            Proxy.newProxyInstance(
                OutboxStore.class.getClassLoader(),
                new Class<?>[] {OutboxStore.class},
                (proxy, method, args) -> {
                  throw new UnsupportedOperationException(method.getName());
                });
    return OutboxRelay.builder(unused, event -> new DeliveryResult.Delivered())
        .backoff(BASE, CAP)
        .build();
  }

  @Test
  void backoffIsFullJitterUpToTheDoublingCeilingCappedAtTheCap() {
    OutboxRelay relay = relay();
    for (int attempt = 1; attempt <= 14; attempt++) {
      long ceiling = Math.min(CAP.toMillis(), BASE.toMillis() << (attempt - 1));
      int n = attempt;
      LongSummaryStatistics delays =
          LongStream.range(0, 2000).map(i -> relay.backoff(n).toMillis()).summaryStatistics();

      assertThat(delays.getMin()).isGreaterThanOrEqualTo(0).isLessThan(ceiling / 4);
      assertThat(delays.getMax()).isLessThanOrEqualTo(ceiling).isGreaterThan(ceiling * 3 / 4);
    }
  }

  @Test
  void backoffOfAVeryLateAttemptStaysWithinTheCap() {
    OutboxRelay relay = relay();
    for (int attempt : new int[] {31, 32, 63, 64, 1000, Integer.MAX_VALUE}) {
      assertThat(relay.backoff(attempt)).isBetween(Duration.ZERO, CAP);
    }
  }
}
