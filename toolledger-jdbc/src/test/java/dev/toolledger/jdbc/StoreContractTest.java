package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;

/**
 * What the store contract tests share: opening stores on this test's database ({@link #openStore},
 * supplied by a subclass per database), closing them afterwards, reading the database's clock and
 * waiting on observable state with a deadline instead of sleeping for a fixed time.
 */
abstract class StoreContractTest {
  static final TenantId ACME = TenantId.of("acme");
  static final TenantId GLOBEX = TenantId.of("globex");

  /** How long a test waits for a state it expects before it fails. */
  static final Duration PATIENCE = Duration.ofSeconds(30);

  private final List<JdbcLedgerStore> opened = new ArrayList<>();

  /**
   * Opens a store on this test's database, with the given extra migrations. Every call within one
   * test opens another store (another node, with a pool of its own) on the same database.
   */
  protected abstract JdbcLedgerStore openStore(List<SchemaMigrations> migrations);

  /** Opens a node on this test's database; it is closed after the test. */
  final JdbcLedgerStore node(SchemaMigrations... migrations) {
    JdbcLedgerStore store = openStore(List.of(migrations));
    opened.add(store);
    return store;
  }

  @AfterEach
  final void closeStores() {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
  }

  static OperationKey key(String value) {
    return OperationKey.of(value);
  }

  /** The database's clock, in epoch milliseconds: what leases and due times are judged by. */
  static long databaseNow(JdbcLedgerStore store) {
    DialectSupport dialect =
        store.dialect() == SqlDialect.SQLITE
            ? new SqliteSupport(Duration.ZERO)
            : new PostgresSupport();
    return queryLong(store, "SELECT " + dialect.nowMillis());
  }

  /** A single number from a query, with string parameters. */
  static long queryLong(JdbcLedgerStore store, String sql, Object... parameters) {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("no row from " + sql);
        }
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The fencing token column of an operation, which the SPI does not expose on records. */
  static long fenceOf(JdbcLedgerStore store, TenantId tenant, OperationKey key) {
    return queryLong(
        store,
        "SELECT fence FROM tl_operations WHERE tenant = ? AND op_key = ?",
        tenant.value(),
        key.value());
  }

  /** Polls {@code condition} until it holds; fails with {@code what} after {@link #PATIENCE}. */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("gave up waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting until " + what, e);
      }
    }
  }

  /** Waits until the database's clock says that the lease of this claim ran out. */
  static void awaitLeaseExpiry(JdbcLedgerStore store, TenantId tenant, OperationKey key) {
    await(
        "the lease of " + key.value() + " expired by the database's clock",
        () ->
            store.expiredClaims(1000).stream()
                .anyMatch(c -> c.tenant().equals(tenant) && c.key().equals(key)));
  }
}
