package dev.toolledger.jdbc;

import dev.toolledger.core.engine.DownstreamKeys;
import dev.toolledger.core.identity.KeyHasher;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The keys derived from a ledger's installation secrets ({@link InstallationSecret}), each read
 * once, or made on first use when the ledger has none yet.
 */
final class InstallationKeys {
  private final DataSource dataSource;
  private final StorageFaults faults;
  private final WriteTransactions writes;
  private volatile KeyHasher keyHasher;
  private volatile DownstreamKeys downstreamKeys;

  InstallationKeys(StoreConnections connections, StorageFaults faults, WriteTransactions writes) {
    this.dataSource = connections.dataSource();
    this.faults = faults;
    this.writes = writes;
  }

  /** See {@link JdbcLedgerStore#keyHasher()}. */
  KeyHasher keyHasher() {
    KeyHasher known = keyHasher;
    if (known != null) {
      return known;
    }
    synchronized (this) {
      if (keyHasher == null) {
        keyHasher = KeyHasher.of(readOrMakeSecret(InstallationSecret.NAME));
      }
      return keyHasher;
    }
  }

  /** See {@link JdbcLedgerStore#downstreamKeys()}. */
  DownstreamKeys downstreamKeys() {
    DownstreamKeys known = downstreamKeys;
    if (known != null) {
      return known;
    }
    synchronized (this) {
      if (downstreamKeys == null) {
        downstreamKeys = DownstreamKeys.of(readOrMakeSecret(InstallationSecret.DOWNSTREAM_KEYS));
      }
      return downstreamKeys;
    }
  }

  private byte[] readOrMakeSecret(String name) {
    try (Connection connection = dataSource.getConnection()) {
      Optional<byte[]> existing = InstallationSecret.read(connection, name);
      if (existing.isPresent()) {
        return existing.get();
      }
    } catch (SQLException e) {
      throw faults.translate(e, "reading the installation secret " + name);
    }
    byte[] fresh = KeyHasher.newSecret();
    // Not check-then-insert: the insert does nothing when another node got there first, and the
    // read in the same transaction returns whichever secret the primary key let in.
    return writes.inTransaction(
        tx -> {
          Connection connection = tx.connection();
          InstallationSecret.insertIfAbsent(connection, name, fresh, Instant.now());
          return InstallationSecret.read(connection, name).orElseThrow();
        });
  }
}
