package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the PostgreSQL store does beyond the contract: opening, pooling, configuration. */
class PostgresStoreTest {

  @Test
  void nodesOpeningTheSameFreshSchemaAtOnceAllSucceedAndEachMigrationIsAppliedOnce()
      throws Exception {
    int nodes = 4;
    ExecutorService threads = Executors.newFixedThreadPool(nodes);
    try {
      // Several rounds, each on a fresh schema, so that different interleavings get a chance.
      for (int round = 0; round < 5; round++) {
        try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
          CyclicBarrier together = new CyclicBarrier(nodes);
          List<Future<JdbcLedgerStore>> opening = new ArrayList<>();
          for (int i = 0; i < nodes; i++) {
            opening.add(
                threads.submit(
                    () -> {
                      together.await();
                      return JdbcLedgerStore.postgres(
                          database.options().poolSize(2).migrations(ItemsTool.MIGRATIONS).build());
                    }));
          }
          List<JdbcLedgerStore> stores = new ArrayList<>();
          try {
            for (Future<JdbcLedgerStore> future : opening) {
              stores.add(future.get(60, TimeUnit.SECONDS));
            }
            try (Connection c = database.connect();
                Statement st = c.createStatement();
                ResultSet rs =
                    st.executeQuery(
                        "SELECT component, version FROM tl_schema_version"
                            + " ORDER BY component, version")) {
              List<String> applied = new ArrayList<>();
              while (rs.next()) {
                applied.add(rs.getString(1) + "/" + rs.getInt(2));
              }
              List<String> expected = new ArrayList<>();
              for (int v = 1; v <= LedgerSchema.migrations().latestVersion(); v++) {
                expected.add("ledger/" + v);
              }
              expected.add("test-items/1");
              assertThat(applied).containsExactlyElementsOf(expected);
            }
            LedgerEngine engine =
                LedgerEngine.builder(stores.get(nodes - 1), ToolRegistry.of(new ItemsTool()))
                    .build();
            assertThat(
                    engine.execute(
                        Invocation.of(
                            TenantId.of("acme"),
                            OperationKey.of("op-1"),
                            "create-item",
                            Json.parse("{\"name\":\"a\"}"))))
                .isInstanceOf(Executed.class);
          } finally {
            stores.forEach(JdbcLedgerStore::close);
          }
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void transactionsRunAtReadCommittedWhateverTheSessionDefault() throws Exception {
    try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
      // The server's default for these sessions is SERIALIZABLE; the pool must override it.
      String url = database.url() + "&options=-c%20default_transaction_isolation%3Dserializable";
      try (JdbcLedgerStore store = JdbcLedgerStore.postgres(PostgresOptions.builder(url).build())) {
        String level =
            store.inTransaction(
                tx -> {
                  try (Statement st = tx.connection().createStatement();
                      ResultSet rs = st.executeQuery("SHOW transaction_isolation")) {
                    rs.next();
                    return rs.getString(1);
                  }
                });

        assertThat(level).isEqualTo("read committed");
      }
    }
  }

  @Test
  void descriptionNamesTheDatabaseButNotThePassword() {
    try (PostgresTestDatabase database = PostgresTestDatabase.create();
        // The test servers trust local connections, so the password is sent and ignored.
        JdbcLedgerStore store =
            JdbcLedgerStore.postgres(
                PostgresOptions.builder(database.url() + "&password=s3cr3t").build())) {

      assertThat(store.description())
          .startsWith("postgresql://")
          .contains("currentSchema=" + database.schema())
          .contains("password=***")
          .doesNotContain("s3cr3t");
      assertThat(store.toString()).doesNotContain("s3cr3t");
    }
  }

  @Test
  void unreachableServerFailsAtOpenWithAMessageWithoutThePassword() {
    // Port 1 on the loopback interface: nothing listens there, the connection is refused at once.
    PostgresOptions options =
        PostgresOptions.builder("jdbc:postgresql://127.0.0.1:1/ledger")
            .user("ledger")
            .password("s3cr3t")
            .connectionTimeout(Duration.ofMillis(250))
            .build();

    assertThatThrownBy(() -> JdbcLedgerStore.postgres(options))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("cannot connect to the ledger database postgresql://127.0.0.1:1/")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void locationResolvedFromAPostgresqlUrlOpensThatDatabase() throws Exception {
    try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
      DatabaseLocation location =
          DatabaseLocation.resolve(null, Map.of(DatabaseLocation.URL_VARIABLE, database.url()));

      try (JdbcLedgerStore store =
          location.open(List.of(ItemsTool.MIGRATIONS), Synchronous.FULL, Duration.ofSeconds(1))) {
        assertThat(store.dialect()).isEqualTo(SqlDialect.POSTGRESQL);
        assertThat(store.description()).isEqualTo(location.description());
        try (Connection c = database.connect();
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM test_items")) {
          rs.next();
          assertThat(rs.getLong(1)).isZero();
        }
      }
    }
  }
}
