package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
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
  void opsHashKeyPrintsTheHashTheLogsCarryAndABackupKeepsIt() throws Exception {
    String expected;
    try (JdbcLedgerStore store = JdbcLedgerStore.sqlite(SqliteOptions.builder(db).build())) {
      expected = store.keyHasher().hash(TenantId.of("acme"), OperationKey.of("note-1"));
    }
    Path backup = dir.resolve("backup.db");
    Path restored = dir.resolve("restored.db");
    assertThat(run("backup", "--db", db.toString(), "--to", backup.toString()).exit()).isZero();
    assertThat(run("restore", "--from", backup.toString(), "--db", restored.toString()).exit())
        .isZero();

    Run hashed = run("ops", "hash-key", "note-1", "--tenant", "acme", "--db", db.toString());
    Run otherTenant = run("ops", "hash-key", "note-1", "--tenant", "globex", "--db", db.toString());
    Run fromRestore =
        run("ops", "hash-key", "note-1", "--tenant", "acme", "--db", restored.toString());
    Run otherLedger =
        run(
            "ops",
            "hash-key",
            "note-1",
            "--tenant",
            "acme",
            "--db",
            dir.resolve("other.db").toString());
    Run shown = run("ops", "show", "note-1", "--tenant", "acme", "--db", db.toString());
    Run fromStdin;
    java.io.InputStream in = System.in;
    try {
      System.setIn(new java.io.ByteArrayInputStream("note-1\n".getBytes(StandardCharsets.UTF_8)));
      fromStdin = run("ops", "hash-key", "-", "--tenant", "acme", "--db", db.toString());
    } finally {
      System.setIn(in);
    }

    assertThat(hashed.exit()).as(hashed.err()).isZero();
    assertThat(hashed.out().strip()).isEqualTo(expected).matches("[0-9a-f]{16}");
    assertThat(otherTenant.out().strip()).isNotEqualTo(expected);
    assertThat(fromRestore.out().strip())
        .as("a restored backup keeps the secret")
        .isEqualTo(expected);
    assertThat(otherLedger.out().strip()).as("another installation").isNotEqualTo(expected);
    assertThat(fromStdin.out().strip()).isEqualTo(expected);
    assertThat(shown.out()).contains("in logs:   key=" + expected);
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
