package dev.toolledger.server.http;

import dev.toolledger.jdbc.JdbcLedgerStore;

/**
 * Healthy when the ledger can write: a committed write of one probe row, reused for a second (see
 * {@link JdbcLedgerStore#writeProblem()}). A node whose database answers reads but refuses writes
 * (an unwritable, full, missing or replaced file; a standby server) is reported unhealthy, and
 * healthy again as soon as it can write, without a restart.
 */
public final class DatabaseHealthCheck implements HealthCheck {
  private final JdbcLedgerStore store;

  public DatabaseHealthCheck(JdbcLedgerStore store) {
    this.store = store;
  }

  @Override
  public String problem() {
    return store.writeProblem().orElse(null);
  }
}
