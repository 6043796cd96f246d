package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * A fault at every JDBC call of the execute path in turn, failing once or failing from then on:
 * whatever call fails, the key ends all-or-nothing (its effect and its record both committed, or
 * neither), and after a fault that fails once, a retry with the same key executes exactly once.
 * Subclasses supply the database.
 */
abstract class FaultAtEveryCallTest {
  static final TenantId TENANT = TenantId.of("acme");

  /** Opens a store on this test's database with the faulty data source in front of the driver. */
  abstract JdbcLedgerStore open(FaultyDataSource faults);

  @Test
  void aFaultThatHappensOnceLeavesEachKeyAllOrNothingAndTheRetryExecutesOnce() throws Exception {
    exercise(FaultyDataSource.Mode.ONCE);
  }

  @Test
  void aFaultThatPersistsLeavesEachKeyAllOrNothing() throws Exception {
    exercise(FaultyDataSource.Mode.ALWAYS);
  }

  private void exercise(FaultyDataSource.Mode mode) throws Exception {
    FaultyDataSource faults = new FaultyDataSource();
    try (JdbcLedgerStore store = open(faults)) {
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool()))
              .config(EngineConfig.builder().transactionAttempts(1).build())
              .build();
      int faultsInjected = 0;
      for (int n = 1; n < 200; n++) {
        String key = "k-" + mode + "-" + n;
        faults.arm(n, mode);
        try {
          call(engine, key);
        } catch (RuntimeException expected) {
          // A failed call is one possible answer; the state below is what must hold.
        } finally {
          faults.disarm();
        }
        if (!faults.fired()) {
          assertThat(faultsInjected).as("faults injected along the execute path").isGreaterThan(5);
          return;
        }
        faultsInjected++;
        long items = count(store, "SELECT COUNT(*) FROM test_items WHERE name = '" + key + "'");
        long records =
            count(store, "SELECT COUNT(*) FROM tl_operations WHERE op_key = '" + key + "'");
        assertThat(items).as("effect of %s after a fault at call %d", key, n).isEqualTo(records);
        if (records == 1) {
          assertThat(
                  count(
                      store,
                      "SELECT COUNT(*) FROM tl_operations WHERE op_key = '"
                          + key
                          + "' AND state = 'COMPLETED'"))
              .isEqualTo(1);
        }
        ExecutionOutcome retry = call(engine, key);
        assertThat(retry)
            .as("retry of %s", key)
            .isInstanceOfAny(ExecutionOutcome.Executed.class, ExecutionOutcome.Replayed.class);
        assertThat(count(store, "SELECT COUNT(*) FROM test_items WHERE name = '" + key + "'"))
            .as("effects of %s after its retry", key)
            .isEqualTo(1);
      }
      throw new AssertionError("the execute path never ran without hitting the fault");
    }
  }

  private static ExecutionOutcome call(LedgerEngine engine, String key) {
    return engine.execute(
        Invocation.of(
            TENANT, OperationKey.of(key), "create-item", Json.parse("{\"name\":\"" + key + "\"}")));
  }

  private static long count(JdbcLedgerStore store, String sql) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
