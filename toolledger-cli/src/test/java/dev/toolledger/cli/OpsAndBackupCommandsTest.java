package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.json.Json;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.plugins.PluginRegistration;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code toolledger ops list|show}, {@code backup} and {@code restore} on a real SQLite ledger. */
class OpsAndBackupCommandsTest {
  @TempDir Path dir;
  Path db;

  /** What a command printed on stdout and stderr, and its exit code. */
  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
      int exit = Main.run(args);
      return new Run(
          exit, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @BeforeEach
  void aLedgerWithTwoTenants() {
    db = dir.resolve("ledger.db");
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(db)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build())) {
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(NotesTool.unlimited())).build();
      for (String tenant : new String[] {"acme", "globex"}) {
        engine.execute(
            Invocation.of(
                TenantId.of(tenant),
                OperationKey.of("note-1"),
                "create-note",
                Json.parse("{\"title\":\"a\"}")));
      }
      engine.resolve(
          TenantId.of("acme"), OperationKey.of("gave-up"), new Resolution.Inquiry(), "token:t1");
    }
  }

  @Test
  void opsListShowsOperationsOfEveryTenantAndFilters() {
    Run all = run("ops", "list", "--db", db.toString());
    Run fenced = run("ops", "list", "--db", db.toString(), "--state", "not_executed");
    Run globex = run("ops", "list", "--db", db.toString(), "--tenant", "globex");

    assertThat(all.exit()).isZero();
    assertThat(all.out()).contains("acme").contains("globex").contains("gave-up");
    assertThat(fenced.out()).contains("gave-up").doesNotContain("note-1");
    assertThat(globex.out()).contains("note-1").doesNotContain("acme");
  }

  @Test
  void opsShowPrintsTheOutcomeAndTheTimeline() {
    Run shown = run("ops", "show", "note-1", "--tenant", "acme", "--db", db.toString());
    Run fence = run("ops", "show", "gave-up", "--tenant", "acme", "--db", db.toString());
    Run absent = run("ops", "show", "note-1", "--tenant", "initech", "--db", db.toString());

    assertThat(shown.exit()).isZero();
    assertThat(shown.out())
        .contains("state:     COMPLETED")
        .contains("response:  201")
        .contains("timeline:")
        .contains("-> COMPLETED");
    assertThat(fence.out()).contains("NOT_EXECUTED").contains("fenced").contains("token:t1");
    assertThat(absent.exit()).isEqualTo(1);
    assertThat(absent.err()).contains("no operation with this key");
  }

  @Test
  void backupAndRestoreMakeAnotherLedgerWithTheSameOperations() throws Exception {
    Path backup = dir.resolve("backup.db");
    Path restored = dir.resolve("restored.db");

    Run made = run("backup", "--db", db.toString(), "--to", backup.toString());
    Run again = run("backup", "--db", db.toString(), "--to", backup.toString());
    Run back = run("restore", "--from", backup.toString(), "--db", restored.toString());

    assertThat(made.exit()).as(made.err()).isZero();
    assertThat(made.out()).contains("3 operations");
    assertThat(again.exit()).isNotZero();
    assertThat(again.err()).contains("refusing to overwrite");
    assertThat(back.exit()).as(back.err()).isZero();
    assertThat(run("ops", "list", "--db", restored.toString()).out())
        .contains("globex")
        .contains("gave-up");
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
        .noneMatch(n -> n.contains("partial"));
  }

  @Test
  void backupOfAPostgresLedgerPointsToPgDump() {
    Run refused =
        run(
            "backup",
            "--db",
            "jdbc:postgresql://127.0.0.1:1/ledger?password=hunter2",
            "--to",
            dir.resolve("x.db").toString());

    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err()).contains("pg_dump").contains("docs/operations.md");
    assertThat(refused.err()).doesNotContain("hunter2");
  }
}
