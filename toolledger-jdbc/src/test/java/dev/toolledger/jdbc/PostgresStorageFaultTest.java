package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL server that stops accepting writes (as a standby does after a failover) and accepts
 * them again: the node answers the ledger's own failure meanwhile and writes again afterwards
 * without a restart. The fault is real: the store's role gets {@code default_transaction_read_only}
 * and its sessions are terminated, so every session the pool opens during the fault is read-only
 * (SQLState 25006) and stays so after the fault is lifted.
 */
class PostgresStorageFaultTest {
  private static final TenantId TENANT = TenantId.of("acme");

  private PostgresTestDatabase database;
  private String role;

  @BeforeEach
  void createRole() throws SQLException {
    database = PostgresTestDatabase.create();
    role = database.schema() + "_writer";
    admin("CREATE ROLE " + role + " LOGIN");
    admin("ALTER SCHEMA " + database.schema() + " OWNER TO " + role);
  }

  @AfterEach
  void dropRole() throws SQLException {
    database.close();
    admin("DROP ROLE IF EXISTS " + role);
  }

  @Test
  void readOnlyServerIsTheLedgersFaultAndWritesResumeOnceItAcceptsWritesAgain() throws Exception {
    try (JdbcLedgerStore store =
        JdbcLedgerStore.postgres(
            PostgresOptions.builder(asRole())
                .poolSize(4)
                .migrations(ItemsTool.MIGRATIONS)
                .build())) {
      LedgerEngine engine = LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool())).build();
      assertThat(create(engine, "before")).isInstanceOf(ExecutionOutcome.Executed.class);

      admin("ALTER ROLE " + role + " SET default_transaction_read_only = on");
      terminateSessions();
      growPool(store);
      assertThatThrownBy(() -> create(engine, "during"))
          .as("the tool's insert refused by a read-only server is the ledger's failure")
          .isInstanceOf(StoreUnavailableException.class)
          .isNotInstanceOf(ToolExecutionException.class);
      assertThat(store.probeWrite()).get().asString().contains("25006");

      admin("ALTER ROLE " + role + " RESET default_transaction_read_only");
      assertThat(store.probeWrite()).as("health once the server accepts writes").isEmpty();
      for (int i = 0; i < 6; i++) {
        assertThat(create(engine, "after-" + i)).isInstanceOf(ExecutionOutcome.Executed.class);
      }
      assertThat(create(engine, "during")).isInstanceOf(ExecutionOutcome.Executed.class);
    }
  }

  private void admin(String sql) throws SQLException {
    try (Connection c = java.sql.DriverManager.getConnection(adminUrl());
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** The schema's URL with this test's role as the user. */
  private String asRole() {
    String url = database.url();
    int query = url.indexOf('?');
    StringBuilder result = new StringBuilder(url.substring(0, query)).append("?user=").append(role);
    for (String parameter : url.substring(query + 1).split("&")) {
      if (!parameter.startsWith("user=")) {
        result.append('&').append(parameter);
      }
    }
    return result.toString();
  }

  private String adminUrl() {
    String url = database.url();
    return url.substring(0, url.indexOf("currentSchema=") - 1);
  }

  /** A failover: the sessions the pool holds are cut; the ones it opens next are read-only. */
  private void terminateSessions() throws SQLException {
    admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
  }

  private static void growPool(JdbcLedgerStore store) throws SQLException {
    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        held.add(store.dataSource().getConnection());
      }
    } catch (SQLException e) {
      // Terminated sessions are found out and replaced as they are borrowed; enough were made.
    }
    for (Connection c : held) {
      c.close();
    }
  }

  private static ExecutionOutcome create(LedgerEngine engine, String name) {
    return engine.execute(
        Invocation.of(
            TENANT,
            OperationKey.of(name),
            "create-item",
            Json.parse("{\"name\":\"" + name + "\"}")));
  }
}
