package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import dev.toolledger.protocol.NotApi;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.UUID;
import org.sqlite.SQLiteConfig;

/**
 * Online backup and restore of a SQLite ledger.
 *
 * <p>{@link #backup} copies the ledger with SQLite's {@code VACUUM INTO}, which reads one snapshot
 * in a single read transaction: in WAL mode it neither blocks the server's writers nor sees half of
 * a transaction, so the copy holds exactly the operations (with their effects) committed before it
 * began. The copy is written beside the target, checked with {@code PRAGMA integrity_check}, synced
 * to disk and only then renamed to the target, so a target file is always a whole backup.
 *
 * <p>For PostgreSQL use the database's own tools ({@code pg_dump}/{@code pg_restore}); see {@code
 * docs/operations.md}.
 */
@NotApi
public final class SqliteBackup {
  private SqliteBackup() {}

  /**
   * What a backup or restore produced.
   *
   * @param operations operations in the copy
   * @param schemaVersion the ledger's schema version in the copy
   */
  public record Report(Path file, long bytes, long operations, int schemaVersion) {}

  /**
   * Copies the ledger at {@code database} (which may be serving) to {@code target}.
   *
   * @throws IllegalArgumentException when the ledger does not exist or the target does
   * @throws StoreException when SQLite fails or the copy is not intact
   */
  public static Report backup(Path database, Path target) {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(target, "target");
    if (!Files.isRegularFile(database)) {
      throw new IllegalArgumentException("no SQLite ledger at " + database);
    }
    refuseExisting(target);
    Path partial = partialBeside(target);
    try {
      try (Connection source = open(database);
          PreparedStatement vacuum = source.prepareStatement("VACUUM INTO ?")) {
        vacuum.setString(1, partial.toAbsolutePath().toString());
        vacuum.execute();
      } catch (SQLException e) {
        throw new StoreException("cannot back up " + database + ": " + e.getMessage(), e);
      }
      Report checked = check(partial, target);
      publish(partial, target);
      return checked;
    } finally {
      deleteQuietly(partial);
    }
  }

  /**
   * Puts a backup in place as the ledger at {@code database}, which must not exist (stop the server
   * and move the old ledger away first). The backup is checked before it is copied.
   *
   * @throws IllegalArgumentException when the backup is missing or a ledger exists at the target
   * @throws StoreException when the backup is not intact
   */
  public static Report restore(Path backup, Path database) {
    Objects.requireNonNull(backup, "backup");
    Objects.requireNonNull(database, "database");
    if (!Files.isRegularFile(backup)) {
      throw new IllegalArgumentException("no backup at " + backup);
    }
    refuseExisting(database);
    for (String suffix : new String[] {"-wal", "-shm", "-journal"}) {
      Path leftover = database.resolveSibling(database.getFileName() + suffix);
      if (Files.exists(leftover)) {
        throw new IllegalArgumentException(
            leftover + " exists: it belongs to another ledger; move it away first");
      }
    }
    Path partial = partialBeside(database);
    try {
      try {
        Files.copy(backup, partial);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot copy " + backup + " to " + partial, e);
      }
      Report checked = check(partial, database);
      publish(partial, database);
      return checked;
    } finally {
      deleteQuietly(partial);
    }
  }

  private static Report check(Path copy, Path reportedAs) {
    try (Connection connection = open(copy)) {
      try (PreparedStatement ps = connection.prepareStatement("PRAGMA integrity_check");
          ResultSet rs = ps.executeQuery()) {
        String verdict = rs.next() ? rs.getString(1) : "no answer";
        if (!"ok".equals(verdict)) {
          throw new StoreException("the copy is not intact: " + verdict);
        }
      }
      long operations;
      int version;
      try (PreparedStatement ps =
              connection.prepareStatement("SELECT COUNT(*) FROM tl_operations");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        operations = rs.getLong(1);
      }
      try (PreparedStatement ps =
          connection.prepareStatement(
              "SELECT MAX(version) FROM tl_schema_version WHERE component = ?")) {
        ps.setString(1, LedgerSchema.COMPONENT);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          version = rs.getInt(1);
        }
      }
      return new Report(reportedAs, Files.size(copy), operations, version);
    } catch (SQLException e) {
      throw new StoreException("the copy is not a readable ledger: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Connection open(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout((int) SqliteOptions.DEFAULT_BUSY_TIMEOUT.toMillis());
    return config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  /** Syncs the copy, renames it to its final name and syncs the directory. */
  private static void publish(Path partial, Path target) {
    try {
      try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      try {
        Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(partial, target);
      }
      Path directory = target.toAbsolutePath().getParent();
      try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
        channel.force(true);
      } catch (IOException e) {
        // Some platforms cannot open a directory; the rename is then as durable as they allow.
      }
    } catch (FileAlreadyExistsException e) {
      throw new IllegalArgumentException(target + " exists; refusing to overwrite it", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + target, e);
    }
  }

  private static void refuseExisting(Path target) {
    if (Files.exists(target)) {
      throw new IllegalArgumentException(target + " exists; refusing to overwrite it");
    }
    Path parent = target.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new IllegalArgumentException("no directory for " + target);
    }
  }

  private static Path partialBeside(Path target) {
    return target
        .toAbsolutePath()
        .resolveSibling("." + target.getFileName() + ".partial-" + UUID.randomUUID());
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // A leftover partial file is named as such; nothing depends on it.
    }
  }
}
