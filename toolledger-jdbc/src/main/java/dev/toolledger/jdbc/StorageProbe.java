package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransientStoreException;
import java.nio.file.NoSuchFileException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a store can write right now, proven by a committed write of one probe row: only a commit
 * meets a full disk, an unwritable WAL file or a standby server. The answer is public (/health
 * needs no token), so it names no path and quotes no driver message.
 */
final class StorageProbe {
  /** The store's logger: operators filter the store's lines by its name. */
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLedgerStore.class);

  /** How long a {@link #writeProblem()} answer is reused: /health must not become a write load. */
  static final Duration PROBE_REUSE = Duration.ofSeconds(1);

  /** A busy probe counts as able when another write committed this recently. */
  private static final Duration BUSY_BUT_WRITING = Duration.ofSeconds(5);

  private final WriteTransactions writes;
  private final DialectSupport dialect;
  private final Object probeLock = new Object();
  private long probedAtNanos;
  private Optional<String> probed;

  StorageProbe(WriteTransactions writes, DialectSupport dialect) {
    this.writes = writes;
    this.dialect = dialect;
  }

  /** See {@link JdbcLedgerStore#writeProblem()}. */
  Optional<String> writeProblem() {
    synchronized (probeLock) {
      long now = System.nanoTime();
      if (probed != null && now - probedAtNanos < PROBE_REUSE.toNanos()) {
        return probed;
      }
      probed = probeWrite();
      probedAtNanos = System.nanoTime();
      return probed;
    }
  }

  /** {@link #writeProblem()} without reuse of an earlier answer. */
  Optional<String> probeWrite() {
    try {
      writes.inTransaction(
          tx -> {
            try (PreparedStatement ps =
                dialect
                    .statements()
                    .prepare(
                        ((JdbcTransaction) tx).rawConnection(),
                        "INSERT INTO tl_write_probe (id, probed_at) VALUES (1, ?)"
                            + " ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at")) {
              ps.setLong(1, System.currentTimeMillis());
              ps.executeUpdate();
            } catch (SQLException e) {
              throw new WrappedSqlException(e);
            }
            return null;
          });
      return Optional.empty();
    } catch (TransientStoreException e) {
      if (System.nanoTime() - writes.lastCommitNanos() < BUSY_BUT_WRITING.toNanos()) {
        return Optional.empty();
      }
      return Optional.of("the ledger's database stayed busy and nothing committed lately");
    } catch (StoreException e) {
      // The reason is public (/health needs no token): no path, no message of the driver.
      LOG.warn("write probe failed: {}", e.getMessage());
      if (e.getCause() instanceof NoSuchFileException) {
        return Optional.of("the ledger cannot write: its database file is missing");
      }
      SQLException sql = StorageFaults.findSqlException(e);
      return Optional.of(
          "the ledger cannot write"
              + (sql == null
                  ? ""
                  : " (SQLState " + sql.getSQLState() + ", code " + sql.getErrorCode() + ")"));
    }
  }
}
