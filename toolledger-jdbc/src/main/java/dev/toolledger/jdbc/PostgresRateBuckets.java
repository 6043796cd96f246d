package dev.toolledger.jdbc;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.core.engine.SharedRateBuckets;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransientStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The tenants' token buckets in {@code tl_rate_buckets}, shared by every node on one PostgreSQL
 * database. Taking a permit is one autocommitted upsert: it refills the bucket for the time since
 * its last refill, takes a permit if one is there, and says whether it did. Concurrent takes of one
 * tenant queue on the bucket's row for that one statement; other tenants do not wait.
 *
 * <p>Units are exact integers, as in the in-memory bucket: a permit is worth {@code period_nanos}
 * units and each nanosecond refills {@code permits} units, so a full bucket holds {@code permits *
 * period_nanos} (which {@link RateLimit} keeps below 2^63). The refill is clamped to what the
 * bucket lacks before it is added, so nothing overflows. A bucket taken under a smaller limit than
 * before is cut to the new capacity.
 */
final class PostgresRateBuckets implements SharedRateBuckets {
  private static final String AVAILABLE =
      "(b.units + LEAST(excluded.permits * excluded.period_nanos - b.units,"
          + " LEAST(GREATEST(0, excluded.refilled_at - b.refilled_at), excluded.period_nanos)"
          + " * excluded.permits))";

  static final String TAKE =
      "INSERT INTO tl_rate_buckets AS b"
          + " (tenant, permits, period_nanos, units, refilled_at, granted)"
          + " VALUES (?, ?, ?, ?, ?, 1)"
          + " ON CONFLICT (tenant) DO UPDATE SET"
          + " permits = excluded.permits,"
          + " period_nanos = excluded.period_nanos,"
          + " granted = CASE WHEN "
          + AVAILABLE
          + " >= excluded.period_nanos THEN 1 ELSE 0 END,"
          + " units = CASE WHEN "
          + AVAILABLE
          + " >= excluded.period_nanos THEN "
          + AVAILABLE
          + " - excluded.period_nanos ELSE "
          + AVAILABLE
          + " END,"
          + " refilled_at = GREATEST(b.refilled_at, excluded.refilled_at)"
          + " RETURNING units, granted";

  private final DataSource dataSource;
  private final DialectSupport dialect;

  PostgresRateBuckets(DataSource dataSource, DialectSupport dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  @Override
  public Optional<Duration> take(TenantId tenant, RateLimit limit, Instant now) {
    long periodNanos = limit.period().toNanos();
    long permits = limit.permits();
    long nowNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps = connection.prepareStatement(TAKE)) {
      ps.setString(1, tenant.value());
      ps.setLong(2, permits);
      ps.setLong(3, periodNanos);
      ps.setLong(4, permits * periodNanos - periodNanos);
      ps.setLong(5, nowNanos);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt("granted") == 1) {
          return Optional.empty();
        }
        long missing = periodNanos - rs.getLong("units");
        return Optional.of(Duration.ofNanos((missing + permits - 1) / permits));
      }
    } catch (SQLException e) {
      if (dialect.isTransient(e)) {
        throw new TransientStoreException(
            "the database asked for a retry while taking a rate permit (SQLState "
                + e.getSQLState()
                + ")",
            e);
      }
      throw new StoreException(
          "database error while taking a rate permit (SQLState " + e.getSQLState() + ")", e);
    }
  }

  @Override
  public String toString() {
    return "PostgresRateBuckets[tl_rate_buckets]";
  }
}
