package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
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
  private static final String READ_ONLY_TRANSACTION = "25006";
  // A claim's remaining wait is the caller's wait minus the time spent before the claim; within
  // this much of the session's setting, the session's setting is used.
  private static final long CLOSE_ENOUGH_MILLIS = 250;

  private final Duration claimWait;

  /**
   * Whether each transaction sets its isolation and lock_timeout (connections not opened by us).
   */
  private final boolean perTransaction;

  PostgresSupport(Duration claimWait) {
    this(claimWait, false);
  }

  private PostgresSupport(Duration claimWait, boolean perTransaction) {
    this.claimWait = claimWait;
    this.perTransaction = perTransaction;
  }

  /**
   * For connections of a pool the application owns: they were opened without {@link
   * #connectionInitSql()} and at whatever isolation the application chose, so every write
   * transaction sets both for itself, transaction-locally, and leaves the application's sessions as
   * they were.
   */
  static PostgresSupport perTransaction(Duration claimWait) {
    return new PostgresSupport(claimWait, true);
  }

  @Override
  public void begin(Connection connection) throws SQLException {
    super.begin(connection);
    if (perTransaction) {
      // The first statement of the transaction, so SET TRANSACTION may still choose the level.
      try (Statement st = connection.createStatement()) {
        st.execute(
            "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '"
                + claimWait.toMillis()
                + "ms'");
      }
    }
  }

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
   * Every pooled connection starts with {@code lock_timeout} = the claim wait (the engine's usual
   * wait), so an ordinary claim needs no statement of its own. A claim that asks for another wait
   * (a caller's {@code Prefer: wait}) sets a transaction-local lock_timeout, at least 1 ms:
   * PostgreSQL reads 0 as "wait forever", the opposite of what a zero wait asks for.
   */
  @Override
  boolean beforeClaim(Connection connection, Duration maxWait) throws SQLException {
    if (Math.abs(maxWait.toMillis() - claimWait.toMillis()) <= CLOSE_ENOUGH_MILLIS) {
      return false;
    }
    long millis = Math.max(1, Math.min(Integer.MAX_VALUE, maxWait.toMillis()));
    try (Statement st = connection.createStatement()) {
      st.execute("SET LOCAL lock_timeout = '" + millis + "ms'");
    }
    return true;
  }

  /** The tool's own statements get the session's lock_timeout back. */
  @Override
  void afterClaim(Connection connection, boolean changed) throws SQLException {
    if (changed) {
      try (Statement st = connection.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '" + claimWait.toMillis() + "ms'");
      }
    }
  }

  /** The statement every pooled connection runs when it opens. */
  String connectionInitSql() {
    return "SET lock_timeout = '" + claimWait.toMillis() + "ms'";
  }

  @Override
  boolean isClaimWaitExceeded(SQLException e) {
    return LOCK_NOT_AVAILABLE.equals(e.getSQLState());
  }

  /**
   * Class 53 (insufficient resources: disk full, out of memory), class 58 (system error: I/O
   * error), class XX (internal error: data or index corrupted) and 25006 (a read-only transaction:
   * the server became a standby after a failover).
   */
  @Override
  boolean isStorageFault(SQLException e) {
    String state = e.getSQLState();
    return state != null
        && (state.startsWith("53")
            || state.startsWith("58")
            || state.startsWith("XX")
            || state.equals(READ_ONLY_TRANSACTION));
  }

  /**
   * 25006: the session is read-only (it was opened on a standby, or while the server refused
   * writes) and stays so; a fresh session may be writable again.
   */
  @Override
  boolean isStaleConnection(SQLException fault) {
    return READ_ONLY_TRANSACTION.equals(fault.getSQLState());
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
