package dev.toolledger.jdbc;

import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The installation's secret for {@link KeyHasher}: one row of {@code tl_installation}, made once
 * per database and shared by every node on it, so that their log lines name a key alike.
 *
 * <p>Whoever reads it first and finds none inserts a fresh one with {@code ON CONFLICT DO NOTHING}
 * and reads again: when several nodes start at once on an empty PostgreSQL ledger, the primary key
 * lets one row in and every node reads that one. Never logged; a backup holds it.
 */
final class InstallationSecret {
  /** The row's name in {@code tl_installation}. */
  static final String NAME = "key-hash-secret";

  /** The row of the downstream-key secret ({@code JdbcLedgerStore.downstreamKeys()}). */
  static final String DOWNSTREAM_KEYS = "downstream-key-secret";

  private static final HexFormat HEX = HexFormat.of();

  private InstallationSecret() {}

  static Optional<byte[]> read(Connection connection) throws SQLException {
    return read(connection, NAME);
  }

  static Optional<byte[]> read(Connection connection, String name) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement("SELECT secret FROM tl_installation WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        String hex = rs.getString(1);
        if (hex == null || hex.length() < 2 * KeyHasher.SECRET_BYTES || !isHex(hex)) {
          // Not the value: only that it is unusable, and what to do.
          throw new StoreException(
              "the ledger's installation secret (tl_installation, name "
                  + name
                  + ") is malformed; restore the row from a backup, or delete it to make a new"
                  + " one (key-hash-secret: hashes in older log lines then no longer match;"
                  + " downstream-key-secret: new operations get other downstream keys, claimed"
                  + " ones keep theirs)");
        }
        return Optional.of(HEX.parseHex(hex));
      }
    }
  }

  /** Inserts {@code secret} unless a secret is there already; the unique name decides. */
  static void insertIfAbsent(Connection connection, byte[] secret, Instant now)
      throws SQLException {
    insertIfAbsent(connection, NAME, secret, now);
  }

  static void insertIfAbsent(Connection connection, String name, byte[] secret, Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "INSERT INTO tl_installation (name, secret, created_at) VALUES (?, ?, ?)"
                + " ON CONFLICT (name) DO NOTHING")) {
      ps.setString(1, name);
      ps.setString(2, HEX.formatHex(secret));
      ps.setLong(3, now.toEpochMilli());
      ps.executeUpdate();
    }
  }

  private static boolean isHex(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.digit(text.charAt(i), 16) < 0) {
        return false;
      }
    }
    return text.length() % 2 == 0;
  }
}
