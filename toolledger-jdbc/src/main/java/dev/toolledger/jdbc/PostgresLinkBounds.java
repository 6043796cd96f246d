package dev.toolledger.jdbc;

import com.zaxxer.hikari.HikariConfig;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What bounds a request when the link to PostgreSQL stalls or breaks, set on the store's own pool
 * from {@link PostgresOptions}:
 *
 * <ul>
 *   <li>the socket timeout: no read waits longer for the server (a stalled link); the driver then
 *       closes the connection and the pool drops it;
 *   <li>the session's {@code statement_timeout}: no statement runs longer (a tool waiting for a row
 *       lock that a stalled transaction holds), answered by the server with 57014;
 *   <li>the session's {@code idle_in_transaction_session_timeout}: the server ends the session of a
 *       transaction whose client fell silent (a node whose link stalled), so its locks do not
 *       outlive the link;
 *   <li>opening a connection: HikariCP passes its {@code connectionTimeout} to the driver as the
 *       login timeout.
 * </ul>
 */
final class PostgresLinkBounds {
  private PostgresLinkBounds() {}

  static void apply(PostgresOptions options, PGSimpleDataSource driver, HikariConfig pool) {
    long socketMillis = options.socketTimeout().toMillis();
    // PgJDBC takes whole seconds; round up so that the socket never gives up before the server.
    driver.setSocketTimeout((int) Math.min(Integer.MAX_VALUE, (socketMillis + 999) / 1000));
    String init = PostgresSupport.connectionInitSql(options.statementTimeout());
    if (init != null) {
      pool.setConnectionInitSql(init);
    }
  }
}
