package dev.toolledger.cli;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.server.notes.NotesSchema;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The options that say where the ledger lives; shared by every command that opens it. */
final class DatabaseOptions {
  @Option(
      names = "--db",
      paramLabel = "PATH",
      description = "SQLite ledger file (default: ${DEFAULT-VALUE}).",
      defaultValue = SqliteOptions.DEFAULT_PATH)
  Path db;

  @Option(
      names = "--synchronous",
      paramLabel = "FULL|NORMAL",
      description =
          "SQLite durability: FULL syncs every commit (default); NORMAL survives a process crash"
              + " but may lose the last commits on power loss.",
      defaultValue = "FULL")
  Synchronous synchronous;

  @Option(
      names = "--busy-timeout",
      paramLabel = "DURATION",
      description =
          "How long a writer waits for the SQLite write lock (default: ${DEFAULT-VALUE}).",
      defaultValue = "5s",
      converter = DurationConverter.class)
  Duration busyTimeout;

  /** Opens the ledger with the notes tool's table migrated beside the ledger's. */
  JdbcLedgerStore open() {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(db)
            .synchronous(synchronous)
            .busyTimeout(busyTimeout)
            .migrations(NotesSchema.migrations())
            .build());
  }
}
