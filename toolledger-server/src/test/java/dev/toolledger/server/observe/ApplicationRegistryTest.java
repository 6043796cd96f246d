package dev.toolledger.server.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's meters in an embedding application's registry (the Spring Boot starter's mounted
 * mode): one call is counted once there and once in the node's own registry, however the
 * application's registry is made (a plain one, or Spring Boot's composite that is also in the
 * global registry).
 */
class ApplicationRegistryTest {
  @TempDir Path dir;

  private void countedOnce(MeterRegistry application, MeterRegistry scraped) {
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("l.db")).build());
        Observability observability =
            Observability.create(
                store, name -> true, Clock.systemUTC(), Duration.ofMinutes(5), application)) {
      observability
          .listener()
          .onOutcome(TenantId.of("acme"), "create-note", "executed", Duration.ofMillis(3));
      observability.listener().onEffect(TenantId.of("acme"), "create-note");

      assertThat(scraped.get("toolledger.requests").counter().count()).isEqualTo(1.0);
      assertThat(scraped.get("toolledger.effects").counter().count()).isEqualTo(1.0);
      assertThat(scraped.get("toolledger.request.duration").timer().count()).isEqualTo(1);
      assertThat(scraped.find("toolledger.requests").counters()).hasSize(1);
      assertThat(observability.scrape())
          .contains("toolledger_requests_total{outcome=\"executed\",tool=\"create-note\"} 1.0");
    }
  }

  @Test
  void aCallIsCountedOnceInAPlainApplicationRegistry() {
    SimpleMeterRegistry application = new SimpleMeterRegistry();
    countedOnce(application, application);
  }

  @Test
  void aCallIsCountedOnceInAnApplicationCompositeThatIsAlsoGlobal() {
    SimpleMeterRegistry simple = new SimpleMeterRegistry();
    CompositeMeterRegistry application = new CompositeMeterRegistry();
    application.add(simple);
    Metrics.addRegistry(simple);
    try {
      countedOnce(application, simple);
    } finally {
      Metrics.removeRegistry(simple);
    }
  }
}
