package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginRegistration;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class McpOptionsTest {
  @TempDir Path dir;

  @Test
  void defaultsServeMcpAndRequireAKeyForEveryTool() {
    McpOptions defaults = McpOptions.defaults();

    assertThat(defaults.enabled()).isTrue();
    assertThat(defaults.allowUnkeyed()).isEmpty();
    assertThat(defaults.drainTimeout()).isEqualTo(McpOptions.DEFAULT_DRAIN_TIMEOUT);
    assertThat(defaults.engineThreads()).isEqualTo(McpOptions.DEFAULT_ENGINE_THREADS);
  }

  @Test
  void buildRejectsBadValuesNamingTheOption() {
    assertThatThrownBy(() -> McpOptions.builder().drainTimeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("drainTimeout");
    assertThatThrownBy(() -> McpOptions.builder().engineThreads(0).build())
        .hasMessageContaining("engineThreads");
    assertThatThrownBy(
            () -> McpOptions.builder().allowUnkeyed(McpConventions.GET_OPERATION).build())
        .hasMessageContaining("allowUnkeyed");
  }

  @Test
  void allowingUnkeyedCallsOfAToolThatDoesNotExistStopsTheStart() {
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(dir.resolve("ledger.db"))
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build())) {
      ToolLedgerApp.Builder app =
          ToolLedgerApp.builder(store)
              .plugin(NotesPlugin.serving(NotesTool.unlimited()))
              .serverConfig(ServerConfig.builder().port(0).build())
              .mcp(McpOptions.builder().allowUnkeyed("create-nothing").build());

      assertThatThrownBy(app::start)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("allowUnkeyed")
          .hasMessageContaining("create-nothing");
    }
  }
}
