package dev.toolledger.cli;

import dev.toolledger.jdbc.DatabaseLocation;
import dev.toolledger.jdbc.SqliteBackup;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code toolledger backup}: a consistent copy of a SQLite ledger, also while it serves. */
@Command(
    name = "backup",
    mixinStandardHelpOptions = true,
    description = {
      "Copy a SQLite ledger to FILE: one consistent snapshot, taken while the server may be"
          + " writing (it is not stopped or blocked). The copy is checked, synced and renamed into"
          + " place; an existing FILE is never overwritten.",
      "PostgreSQL ledgers are backed up with pg_dump: see docs/operations.md."
    })
final class BackupCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;

  @Option(names = "--to", required = true, paramLabel = "FILE", description = "The backup file.")
  Path to;

  @Override
  public Integer call() {
    Path file = sqliteFile(database.location(), "backup");
    SqliteBackup.Report report = SqliteBackup.backup(file, to);
    System.out.println(
        "toolledger: backed up "
            + file.toAbsolutePath()
            + " to "
            + report.file().toAbsolutePath()
            + " ("
            + report.operations()
            + " operations, schema version "
            + report.schemaVersion()
            + ", "
            + report.bytes()
            + " bytes)");
    return 0;
  }

  /** The SQLite file, or an error that points PostgreSQL users to pg_dump. */
  static Path sqliteFile(DatabaseLocation location, String verb) {
    if (location instanceof DatabaseLocation.SqliteFile sqlite) {
      return sqlite.path();
    }
    throw new IllegalArgumentException(
        verb
            + " handles SQLite ledgers only; "
            + location.description()
            + " is PostgreSQL: use pg_dump and pg_restore as docs/operations.md describes");
  }
}
