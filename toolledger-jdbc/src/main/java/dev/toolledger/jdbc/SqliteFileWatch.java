package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a write on SQLite: the file must still be the one the pool's connections opened. A
 * connection keeps writing into a file that was removed (the writes are lost with it) or replaced
 * (the writes miss the new file) without an error in WAL mode, so the store looks.
 */
final class SqliteFileWatch {
  /** The store's logger: operators filter the store's lines by its name. */
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLedgerStore.class);

  /** The SQLite file, watched for removal and replacement under the running store; else null. */
  private final Path file;

  private final StoreConnections connections;
  private volatile Object fileKey;

  /**
   * @param file the SQLite file the store opened, or null for none to watch (PostgreSQL, an
   *     application's data source)
   */
  SqliteFileWatch(Path file, StoreConnections connections) {
    this.file = file;
    this.connections = connections;
    this.fileKey = file == null ? null : fileKeyOrNull(file);
  }

  /**
   * @throws StoreUnavailableException when the file is missing or cannot be read; a replaced file
   *     makes the store reopen its connections instead
   */
  void check() {
    if (file == null) {
      return;
    }
    Object now;
    try {
      now = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      connections.evictAll();
      throw new StoreUnavailableException(
          "the ledger's database file "
              + file
              + " is missing; nothing was recorded. Put the file back (or restore a backup, see"
              + " docs/operations.md); the node writes again as soon as it is there",
          e);
    } catch (IOException e) {
      connections.evictAll();
      throw new StoreUnavailableException(
          "cannot read the ledger's database file " + file + "; nothing was recorded", e);
    }
    if (!Objects.equals(now, fileKey)) {
      LOG.warn(
          "the ledger's database file {} was replaced under the running node; reopening it", file);
      connections.evictAll();
      fileKey = now;
    }
  }

  private static Object fileKeyOrNull(Path file) {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    } catch (IOException e) {
      return null;
    }
  }
}
