package dev.toolledger.jdbc;

import dev.toolledger.core.store.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;

/**
 * PostgreSQL runs writers in parallel, so there is no in-process writer gate.
 *
 * <p>Transactions run at READ COMMITTED. The claim is an {@code INSERT ... ON CONFLICT DO NOTHING}
 * on the (tenant, op_key) primary key: a second claimer of a key that an open transaction already
 * inserted waits for that transaction, then inserts nothing if it committed (and its next
 * statement, with a fresh snapshot, reads the committed row) or inserts if it aborted. Stronger
 * levels add nothing to that arbitration and turn the wait into serialization failures.
 */
final class PostgresSupport extends DialectSupport {
  private static final Set<String> TRANSIENT_STATES =
      Set.of(
          "40001", // serialization_failure
          "40P01", // deadlock_detected
          "57P01", // admin_shutdown: the backend was terminated (failover, pg_terminate_backend)
          "57P02", // crash_shutdown: another backend crashed and the server restarts
          "57P03"); // cannot_connect_now: the server is starting up or shutting down
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  @Override
  SqlDialect kind() {
    return SqlDialect.POSTGRESQL;
  }

  @Override
  String nowMillis() {
    return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
  }

  @Override
  String skipLocked() {
    return " FOR UPDATE SKIP LOCKED";
  }

  @Override
  boolean enterWrite() {
    return true;
  }

  @Override
  void exitWrite() {}

  /**
   * Bounds the claim's wait for a concurrent claimer with a transaction-local lock_timeout. At
   * least 1 ms: PostgreSQL reads 0 as "wait forever", the opposite of what a zero wait asks for.
   */
  @Override
  void beforeClaim(Connection connection, Duration maxWait) throws SQLException {
    long millis = Math.max(1, Math.min(Integer.MAX_VALUE, maxWait.toMillis()));
    try (Statement st = connection.createStatement()) {
      st.execute("SET LOCAL lock_timeout = '" + millis + "ms'");
    }
  }

  /**
   * The claim's wait is for the same key only; the tool's own statements get the session's
   * lock_timeout back. (SET LOCAL would end with the transaction anyway.)
   */
  @Override
  void afterClaim(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("SET LOCAL lock_timeout TO DEFAULT");
    }
  }

  @Override
  boolean isClaimWaitExceeded(SQLException e) {
    return LOCK_NOT_AVAILABLE.equals(e.getSQLState());
  }

  @Override
  boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    if (state != null && (TRANSIENT_STATES.contains(state) || state.startsWith("08"))) {
      return true;
    }
    return super.isTransient(e);
  }
}
