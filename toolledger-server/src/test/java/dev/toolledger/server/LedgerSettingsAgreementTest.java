package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes sharing a ledger must use the same retention and tombstone window: the first node records
 * them in the ledger, a node with other values refuses to start (serving nothing), and an operator
 * changes them on purpose with {@code adoptLedgerSettings}.
 */
class LedgerSettingsAgreementTest {
  @TempDir Path dir;

  static UnaryOperator<ToolLedgerApp.Builder> with(
      UnaryOperator<EngineConfig.Builder> engine, boolean adopt) {
    return node ->
        node.engineConfig(engine.apply(EngineConfig.builder().nodeId("node-x")).build())
            .adoptLedgerSettings(adopt);
  }

  @Test
  void aNodeWithAnotherTombstoneWindowRefusesToStart() throws Exception {
    Path file = dir.resolve("ledger.db");
    try (Cluster first = Cluster.sqlite(file, node -> node)) {
      assertThat(first.store().settings().recorded())
          .containsEntry("tombstone-window", "PT168H")
          .containsEntry("retention.create-note", "PT168H");
    }

    assertThatThrownBy(
            () -> Cluster.sqlite(file, with(e -> e.tombstoneWindow(Duration.ofHours(1)), false)))
        .isInstanceOf(SettingsMismatchException.class)
        .hasMessageContaining(
            "tombstone-window: the ledger has PT168H (from node-1), this node PT1H")
        .hasMessageContaining("--adopt-retention-settings");
  }

  @Test
  void aNodeWithAnotherRetentionRefusesToStartWhileTheFirstServes() throws Exception {
    Path file = dir.resolve("ledger.db");
    try (Cluster first = Cluster.sqlite(file, node -> node)) {
      String acme = first.token("acme");

      assertThatThrownBy(
              () ->
                  Cluster.sqlite(
                      file, with(e -> e.retention("create-note", Duration.ofDays(30)), false)))
          .isInstanceOf(SettingsMismatchException.class)
          .hasMessageContaining("retention.create-note");
      assertThat(Http.createNote(first.node(0), acme, "n-1", "{\"title\":\"a\"}").status())
          .isEqualTo(201);
    }
  }

  @Test
  void adoptingMakesTheNodesSettingsTheLedgersAndTheOldOnesAreThenRefused() throws Exception {
    Path file = dir.resolve("ledger.db");
    Cluster.sqlite(file, node -> node).close();

    try (Cluster adopted =
        Cluster.sqlite(file, with(e -> e.tombstoneWindow(Duration.ofDays(30)), true))) {
      assertThat(adopted.store().settings().recorded()).containsEntry("tombstone-window", "PT720H");
    }

    assertThatThrownBy(() -> Cluster.sqlite(file, node -> node))
        .isInstanceOf(SettingsMismatchException.class)
        .hasMessageContaining("the ledger has PT720H (from node-x), this node PT168H");
    Cluster.sqlite(file, with(e -> e.tombstoneWindow(Duration.ofDays(30)), false)).close();
  }

  @Test
  void twoPostgresNodesWithDifferentWindowsCannotBothStart() {
    try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
      try (Cluster first = Cluster.postgres(database, 1, node -> node)) {
        JdbcLedgerStore store = first.store();
        assertThat(store.settings().recorded()).containsEntry("tombstone-window", "PT168H");

        assertThatThrownBy(
                () ->
                    Cluster.postgres(
                        database, 1, with(e -> e.tombstoneWindow(Duration.ZERO), false)))
            .isInstanceOf(SettingsMismatchException.class)
            .hasMessageContaining("this node PT0S");
      }
    }
  }
}
