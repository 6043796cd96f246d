package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A BEGIN that fails with SQLITE_BUSY must leave the pooled connection usable and transactional:
 * the next effect that fails after its insert must still be rolled back.
 */
class SqliteBusyRecoveryTest {
  @TempDir Path dir;

  @Test
  void connectionThatMetABusyBeginStillRollsBackItsNextTransaction() throws Exception {
    Path file = dir.resolve("ledger.db");
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(file)
                .busyTimeout(Duration.ofMillis(100))
                .poolSize(2)
                .migrations(ItemsTool.MIGRATIONS)
                .build())) {
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool()))
              .config(EngineConfig.builder().transactionAttempts(1).build())
              .build();
      TenantId tenant = TenantId.of("acme");

      try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
          Statement st = other.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        ExecutionOutcome busy =
            engine.execute(
                Invocation.of(
                    tenant,
                    OperationKey.of("op-1"),
                    "create-item",
                    Json.parse("{\"name\":\"a\"}")));
        assertThat(busy).isInstanceOf(ExecutionOutcome.Busy.class);
        st.execute("ROLLBACK");
      }

      assertThatThrownBy(
              () ->
                  engine.execute(
                      Invocation.of(
                          tenant,
                          OperationKey.of("op-2"),
                          "create-item",
                          Json.parse("{\"name\":\"explode\"}"))))
          .isInstanceOf(ToolExecutionException.class);

      try (Connection c = store.dataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT (SELECT COUNT(*) FROM test_items) + (SELECT COUNT(*) FROM tl_operations)")) {
        rs.next();
        assertThat(rs.getLong(1)).isZero();
      }
    }
  }
}
