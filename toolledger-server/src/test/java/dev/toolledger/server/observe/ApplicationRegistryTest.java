package dev.toolledger.server.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginRegistration;
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
 * The ledger's meters in an embedding application's registry. Mounted in the application (the
 * Spring Boot starter), a call is recorded in the application's registry alone: before, it was
 * recorded a second time in the node's registry, which nothing scrapes there, beside JVM meters the
 * application binds itself. On the node's own server both registries count it once, however the
 * application's registry is made.
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
  void mountedInAnApplicationTheLedgerRecordsInTheApplicationsRegistryAlone() {
    SimpleMeterRegistry application = new SimpleMeterRegistry();
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(
                SqliteOptions.builder(dir.resolve("mounted.db"))
                    .migrations(PluginRegistration.migrations(NotesTables.schema()))
                    .build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .plugin(NotesPlugin.serving(NotesTool.unlimited()))
                .meterRegistry(application)
                .startMounted()) {
      app.engine()
          .execute(
              Invocation.of(
                  TenantId.of("acme"),
                  OperationKey.of("k-1"),
                  "create-note",
                  Json.parse("{\"title\":\"t\"}")));

      assertThat(application.get("toolledger.requests").counter().count()).isEqualTo(1.0);
      assertThat(application.get("toolledger.effects").counter().count()).isEqualTo(1.0);
      assertThat(application.find("toolledger.operations.unknown").gauge()).isNotNull();
      MeterRegistry node = app.observability().registry();
      assertThat(node.find("toolledger.requests").counters())
          .as("recorded a second time where nothing reads it")
          .isEmpty();
      assertThat(node.find("jvm.memory.used").gauges())
          .as("the application reports the JVM itself")
          .isEmpty();
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
