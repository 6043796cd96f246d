package dev.toolledger.cli;

import dev.toolledger.jdbc.DatabaseLocation;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.jdbc.Synchronous;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/** The options that say where the ledger lives; shared by every command that opens it. */
final class DatabaseOptions {
  @Option(
      names = "--db",
      paramLabel = "PATH|JDBC-URL",
      description =
          "The ledger: a SQLite file path, or a jdbc:postgresql://host:port/db URL. Default: $"
              + DatabaseLocation.URL_VARIABLE
              + " if set, else "
              + SqliteOptions.DEFAULT_PATH
              + ". PostgreSQL credentials may come from $"
              + DatabaseLocation.USER_VARIABLE
              + " and $"
              + DatabaseLocation.PASSWORD_VARIABLE
              + ".")
  String db;

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
          "How long a SQLite writer waits for the write lock (default: ${DEFAULT-VALUE}).",
      defaultValue = "5s",
      converter = DurationConverter.class)
  Duration busyTimeout;

  DatabaseLocation location() {
    return DatabaseLocation.resolve(db, System.getenv());
  }

  /** Opens the ledger; plugins' tables are migrated when a node starts ({@code ToolLedgerApp}). */
  JdbcLedgerStore open() {
    return location().open(List.of(), synchronous, busyTimeout);
  }

  /** Opens the ledger for a node whose engine waits {@code maxWait} for concurrent executions. */
  JdbcLedgerStore open(Duration maxWait) {
    return location().open(List.of(), synchronous, busyTimeout, maxWait);
  }
}
