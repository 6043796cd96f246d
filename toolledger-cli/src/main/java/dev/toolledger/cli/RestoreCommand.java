package dev.toolledger.cli;

import dev.toolledger.jdbc.SqliteBackup;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code toolledger restore}: put a backup in place as a new SQLite ledger. */
@Command(
    name = "restore",
    mixinStandardHelpOptions = true,
    description = {
      "Check a backup made by 'toolledger backup' and copy it to --db, which must not exist:"
          + " stop the server and move the old ledger (and its -wal and -shm files) away first."
          + " Then start the server on --db; every key in the backup replays its recorded outcome.",
      "PostgreSQL ledgers are restored with pg_restore: see docs/operations.md."
    })
final class RestoreCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;

  @Option(names = "--from", required = true, paramLabel = "FILE", description = "The backup file.")
  Path from;

  @Override
  public Integer call() {
    Path file = BackupCommand.sqliteFile(database.location(), "restore");
    SqliteBackup.Report report = SqliteBackup.restore(from, file);
    System.out.println(
        "toolledger: restored "
            + from.toAbsolutePath()
            + " to "
            + report.file().toAbsolutePath()
            + " ("
            + report.operations()
            + " operations, schema version "
            + report.schemaVersion()
            + ")");
    return 0;
  }
}
