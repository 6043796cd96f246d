package dev.toolledger.bench;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.jdbc.JdbcLedgerStore;
import java.sql.PreparedStatement;

/**
 * Fills a ledger with completed operation records in bulk, with SQL alone, so that a benchmark can
 * start from millions of records in minutes: keys {@code fill-1 .. fill-N} (or another prefix) of
 * tenant {@value Target#TENANT_NAME}, each a completed create-note with a small stored response.
 */
final class Fill {
  private static final int BATCH = 200_000;

  private Fill() {}

  /** Inserts {@code count} records, in transactions of up to 200,000 rows. */
  static void operations(JdbcLedgerStore store, long count, Harness.Progress progress) {
    long now = System.currentTimeMillis();
    operations(store, "fill-", count, now + 7L * 24 * 3600 * 1000, progress);
  }

  /**
   * Inserts {@code count} records keyed {@code prefix1 .. prefixN} that expire at {@code
   * expiresAtMillis} (in the past: records the sweeper will delete).
   */
  static void operations(
      JdbcLedgerStore store,
      String prefix,
      long count,
      long expiresAtMillis,
      Harness.Progress progress) {
    long now = System.currentTimeMillis();
    String fingerprint = "0".repeat(64);
    for (long from = 1; from <= count; from += BATCH) {
      long to = Math.min(count, from + BATCH - 1);
      long first = from;
      String sql =
          store.dialect() == SqlDialect.SQLITE
              ? "WITH RECURSIVE seq(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM seq WHERE n < ?)"
                  + " INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint,"
                  + " state, response_status, response_body, created_at, completed_at,"
                  + " expires_at) SELECT ?, CAST(? AS TEXT) || n, 'create-note', '1', ?, 'COMPLETED', 201,"
                  + " '{\"id\":' || n || ',\"title\":\"benchmark note\",\"body\":\"\"}', ?, ?, ?"
                  + " FROM seq"
              : "INSERT INTO tl_operations (tenant, op_key, tool, tool_version, fingerprint,"
                  + " state, response_status, response_body, created_at, completed_at,"
                  + " expires_at) SELECT ?, CAST(? AS TEXT) || n, 'create-note', '1', ?, 'COMPLETED', 201,"
                  + " '{\"id\":' || n || ',\"title\":\"benchmark note\",\"body\":\"\"}', ?, ?, ?"
                  + " FROM generate_series(?::bigint, ?::bigint) AS n";
      store.inTransaction(
          tx -> {
            try (PreparedStatement ps = tx.connection().prepareStatement(sql)) {
              int i = 1;
              if (store.dialect() == SqlDialect.SQLITE) {
                ps.setLong(i++, first);
                ps.setLong(i++, to);
              }
              ps.setString(i++, Target.TENANT_NAME);
              ps.setString(i++, prefix);
              ps.setString(i++, fingerprint);
              ps.setLong(i++, now);
              ps.setLong(i++, now);
              ps.setLong(i++, expiresAtMillis);
              if (store.dialect() == SqlDialect.POSTGRESQL) {
                ps.setLong(i++, first);
                ps.setLong(i, to);
              }
              return ps.executeUpdate();
            }
          });
      progress.label("filled " + to + " of " + count + " " + prefix + " records");
    }
  }
}
