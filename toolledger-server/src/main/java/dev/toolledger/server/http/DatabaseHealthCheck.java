package dev.toolledger.server.http;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.jdbc.JdbcLedgerStore;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * Healthy when the ledger can write: a committed write of one probe row, reused for a second (see
 * {@link JdbcLedgerStore#writeProblem()}). A node whose database answers reads but refuses writes
 * (an unwritable, full, missing or replaced file; a standby server) is reported unhealthy, and
 * healthy again as soon as it can write, without a restart.
 */
public final class DatabaseHealthCheck implements HealthCheck {
  /** What the growing probe writes: more than a request and its recorded response take. */
  static final int GROWING_PROBE_BYTES = 256 * 1024;

  private final JdbcLedgerStore store;

  public DatabaseHealthCheck(JdbcLedgerStore store) {
    this.store = store;
  }

  @Override
  public String problem() {
    return store.writeProblem().orElse(null);
  }

  /**
   * A probe that needs fresh space, as a new operation does: on SQLite a row of {@value
   * #GROWING_PROBE_BYTES} bytes committed and removed again (the small probe rewrites its row in
   * place and still commits on a full disk); on PostgreSQL, where every commit appends to the WAL,
   * the small probe. Null when it committed, otherwise a short reason; a busy database answers null
   * only if the small probe does.
   */
  public HealthCheck growing() {
    if (store.dialect() != SqlDialect.SQLITE) {
      return this;
    }
    return () -> {
      try {
        store.inTransaction(
            tx -> {
              try (PreparedStatement insert =
                  tx.connection()
                      .prepareStatement(
                          "INSERT OR REPLACE INTO tl_write_probe (id, probed_at)"
                              + " VALUES (2, zeroblob(?))")) {
                insert.setInt(1, GROWING_PROBE_BYTES);
                insert.executeUpdate();
              }
              return null;
            });
        store.inTransaction(
            tx -> {
              try (Statement delete = tx.connection().createStatement()) {
                delete.executeUpdate("DELETE FROM tl_write_probe WHERE id = 2");
              }
              return null;
            });
        return null;
      } catch (TransientStoreException e) {
        return problem();
      } catch (StoreException e) {
        return "the ledger cannot write: a write that needs fresh space failed";
      }
    };
  }
}
