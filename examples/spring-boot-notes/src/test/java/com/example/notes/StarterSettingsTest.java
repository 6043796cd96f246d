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

  /** Starts the application with {@code arguments} on its command line (over its properties). */
  ConfigurableApplicationContext run(String... arguments) {
    String[] all = new String[arguments.length + 3];
    all[0] = "--server.port=0";
    all[1] = "--notes.print-demo-token=false";
    all[2] = "--spring.datasource.url=jdbc:sqlite:" + dir.resolve("notes.db");
    System.arraycopy(arguments, 0, all, 3, arguments.length);
    return new SpringApplicationBuilder(NotesApplication.class).run(all);
  }

  @Test
  void aBadPathStopsTheStartWithAMessageNamingTheProperty() {
    assertThatThrownBy(() -> run("--toolledger.path=toolledger/").close())
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("toolledger.path must start with '/'")
        .hasMessageContaining("'toolledger/'");
  }

  @Test
  void withTheStarterTurnedOffThereIsNoLedgerAndNoLedgerTables() throws Exception {
    try (ConfigurableApplicationContext context = run("--toolledger.enabled=false")) {
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
