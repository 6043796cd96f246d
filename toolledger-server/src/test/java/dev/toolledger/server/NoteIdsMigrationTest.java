package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TableSchema;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.plugins.PluginRegistration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrading a ledger whose notes were numbered across tenants: the ids already handed out stay what
 * they were (a replay answers them, and a tenant may hold them), and new notes of each tenant
 * continue after that tenant's highest id, without gaps caused by other tenants.
 */
class NoteIdsMigrationTest {
  @TempDir Path dir;

  @Test
  void idsHandedOutBeforeTheUpgradeStayAndNewOnesAreCountedPerTenant() throws Exception {
    Path file = dir.resolve("ledger.db");
    TableSchema firstStepOnly = TableSchema.of("notes", NotesTables.schema().steps().get(0));
    try (JdbcLedgerStore old =
            JdbcLedgerStore.sqlite(
                SqliteOptions.builder(file)
                    .migrations(PluginRegistration.migrations(firstStepOnly))
                    .build());
        Connection c = old.dataSource().getConnection();
        Statement st = c.createStatement()) {
      // Ids 1 to 4 across tenants, as the first schema gave them.
      for (String tenant : List.of("acme", "globex", "acme", "globex")) {
        st.execute(
            "INSERT INTO notes (tenant, title, body, created_at) VALUES ('"
                + tenant
                + "', 'old', '', 0)");
      }
    }

    try (Cluster cluster = Cluster.sqlite(file, node -> node)) {
      String acme = cluster.token("acme");
      String globex = cluster.token("globex");

      assertThat(ids(Http.get(cluster.node(0), "/v1/notes", acme))).containsExactly(1L, 3L);
      assertThat(newNote(cluster, acme, "a-1")).isEqualTo(4);
      assertThat(newNote(cluster, globex, "g-1")).isEqualTo(5);
      assertThat(newNote(cluster, acme, "a-2")).isEqualTo(5);
      assertThat(ids(Http.get(cluster.node(0), "/v1/notes", globex))).containsExactly(2L, 4L, 5L);
    }
  }

  private static long newNote(Cluster cluster, String token, String key) {
    return Http.createNote(cluster.node(0), token, key, "{\"title\":\"new\"}")
        .json()
        .get("id")
        .asLong();
  }

  private static List<Long> ids(Http.Reply reply) {
    List<Long> ids = new ArrayList<>();
    reply.json().get("notes").forEach(note -> ids.add(note.get("id").asLong()));
    return ids;
  }
}
