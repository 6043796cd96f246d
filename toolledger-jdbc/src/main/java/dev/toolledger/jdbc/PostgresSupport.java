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
          "57P03", // cannot_connect_now: the server is starting up or shutting down
          // idle_in_transaction_session_timeout: the server ended a session whose transaction sat
          // idle past the ledger's bound (its link stalled); the transaction never committed.
          "25P03",
          // A lock or statement timeout: in the ledger's transaction, by the ledger's statement or
          // the tool's, it means the database or its link misbehaved (a transaction holding the
          // lock stalled, the statement ran past the ledger's bound). The transaction is aborted
          // and nothing of it remains, so it is the ledger's retryable answer, not the tool's
          // failure. (A claim's own lock timeout is told apart first: isClaimWaitExceeded.)
          "55P03", // lock_not_available
          "57014"); // query_canceled: statement_timeout
  private static final String LOCK_NOT_AVAILABLE = "55P03";
  private static final String READ_ONLY_TRANSACTION = "25006";

  /** Whether each transaction sets its isolation (connections not opened by us). */
  private final boolean perTransaction;

  PostgresSupport() {
    this(false);
  }

  private PostgresSupport(boolean perTransaction) {
    this.perTransaction = perTransaction;
  }

  /**
   * For connections of a pool the application owns: they were opened at whatever isolation the
   * application chose, so every write transaction sets READ COMMITTED for itself,
   * transaction-locally, and leaves the application's sessions as they were. (Each claim bounds its
   * own wait, on any connection: {@link KeyLocks#bounded}.)
   */
  static PostgresSupport perTransaction() {
    return new PostgresSupport(true);
  }

  @Override
  public void begin(Connection connection) throws SQLException {
    super.begin(connection);
    if (perTransaction) {
      // The first statement of the transaction, so SET TRANSACTION may still choose the level.
      try (Statement st = connection.createStatement()) {
        st.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
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
   * The statement every pooled connection runs when it opens: the ledger's bound on a statement
   * ({@code statement_timeout}) and on a transaction left idle by its client ({@code
   * idle_in_transaction_session_timeout}, which ends the session of a node whose link stalled or
   * broke mid-transaction, so that the locks it held do not outlive the link). No lock_timeout:
   * each claim sets its own, for its own lock alone. Null when there is nothing to set.
   */
  static String connectionInitSql(Duration statementTimeout) {
    if (statementTimeout.isZero()) {
      return null;
    }
    long millis = statementTimeout.toMillis();
    return "SET statement_timeout = '"
        + millis
        + "ms'; SET idle_in_transaction_session_timeout = '"
        + millis
        + "ms'";
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
