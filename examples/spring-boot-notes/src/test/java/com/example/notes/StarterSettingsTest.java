package com.example.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.embed.ToolLedger;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The starter's settings as an application meets them at start. */
class StarterSettingsTest {
  @TempDir Path dir;

  SpringApplicationBuilder application(String... properties) {
    return new SpringApplicationBuilder(NotesApplication.class)
        .properties(
            "server.port=0",
            "notes.print-demo-token=false",
            "spring.datasource.url=jdbc:sqlite:" + dir.resolve("notes.db"))
        .properties(properties);
  }

  @Test
  void aBadPathStopsTheStartWithAMessageNamingTheProperty() {
    assertThatThrownBy(() -> application("toolledger.path=toolledger/").run().close())
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("toolledger.path must start with '/'")
        .hasMessageContaining("'toolledger/'");
  }

  @Test
  void withTheStarterTurnedOffThereIsNoLedgerAndNoLedgerTables() throws Exception {
    try (ConfigurableApplicationContext context = application("toolledger.enabled=false").run()) {
      assertThat(context.getBeanProvider(ToolLedger.class).getIfAvailable()).isNull();
      var jdbc = context.getBean(org.springframework.jdbc.core.JdbcTemplate.class);
      assertThat(
              jdbc.queryForObject(
                  "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'tl\\_%' ESCAPE '\\'",
                  Integer.class))
          .isZero();
    }
  }
}
