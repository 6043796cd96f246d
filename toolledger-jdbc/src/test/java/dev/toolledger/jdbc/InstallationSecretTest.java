package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installation's key-hash secret: made once per ledger database, kept across restarts, the same
 * for every node on the database, and different from one installation to the next.
 */
class InstallationSecretTest {
  private static final TenantId ACME = TenantId.of("acme");
  private static final OperationKey KEY = OperationKey.of("order-42");

  @TempDir Path dir;

  private JdbcLedgerStore sqlite(String file) {
    return JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve(file)).build());
  }

  @Test
  void twoInstallationsHashTheSameKeyDifferently() {
    try (JdbcLedgerStore one = sqlite("one.db");
        JdbcLedgerStore two = sqlite("two.db")) {
      assertThat(one.keyHasher().hash(ACME, KEY)).isNotEqualTo(two.keyHasher().hash(ACME, KEY));
    }
  }

  @Test
  void theSecretSurvivesARestartAndIsTheOneStored() throws Exception {
    String before;
    try (JdbcLedgerStore store = sqlite("ledger.db")) {
      before = store.keyHasher().hash(ACME, KEY);
    }
    try (JdbcLedgerStore store = sqlite("ledger.db")) {
      assertThat(store.keyHasher().hash(ACME, KEY)).isEqualTo(before);
    }
    try (Connection c =
        DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("ledger.db").toAbsolutePath())) {
      List<String> secrets = secrets(c);
      assertThat(secrets).hasSize(1);
      byte[] secret = HexFormat.of().parseHex(secrets.get(0));
      assertThat(secret).hasSize(KeyHasher.SECRET_BYTES);
      assertThat(KeyHasher.of(secret).hash(ACME, KEY)).isEqualTo(before);
    }
  }

  @Test
  void processesOpeningOneSqliteFileAtOnceShareOneSecret() throws Exception {
    sqlite("shared.db").close(); // migrated, no secret yet
    assertSharedByRacingNodes(() -> sqlite("shared.db"), 4);
  }

  @Test
  void nodesOnOnePostgresSchemaMakeOneSecretAndShareItAcrossRestarts() throws Exception {
    try (PostgresTestDatabase database = PostgresTestDatabase.create()) {
      Supplier<JdbcLedgerStore> node =
          () -> JdbcLedgerStore.postgres(database.options().poolSize(2).build());
      node.get().close(); // migrated, no secret yet
      // Several rounds on the same schema would find the secret made; one fresh race is the point.
      String shared = assertSharedByRacingNodes(node, 4);

      try (JdbcLedgerStore restarted = node.get();
          Connection c = database.connect()) {
        assertThat(restarted.keyHasher().hash(ACME, KEY)).isEqualTo(shared);
        assertThat(secrets(c)).hasSize(1);
      }
    }
  }

  /**
   * Opens {@code nodes} stores, releases them from one barrier to read the secret of a ledger that
   * has none yet, and checks that they all hash alike; returns that hash.
   */
  private static String assertSharedByRacingNodes(Supplier<JdbcLedgerStore> open, int nodes)
      throws Exception {
    List<JdbcLedgerStore> stores = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(nodes);
    try {
      for (int i = 0; i < nodes; i++) {
        stores.add(open.get());
      }
      CyclicBarrier together = new CyclicBarrier(nodes);
      List<Future<String>> hashes = new ArrayList<>();
      for (JdbcLedgerStore store : stores) {
        hashes.add(
            threads.submit(
                () -> {
                  together.await();
                  return store.keyHasher().hash(ACME, KEY);
                }));
      }
      List<String> seen = new ArrayList<>();
      for (Future<String> hash : hashes) {
        seen.add(hash.get(60, TimeUnit.SECONDS));
      }
      assertThat(seen).hasSize(nodes).containsOnly(seen.get(0));
      return seen.get(0);
    } finally {
      threads.shutdownNow();
      stores.forEach(JdbcLedgerStore::close);
    }
  }

  private static List<String> secrets(Connection c) throws Exception {
    List<String> secrets = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT secret FROM tl_installation")) {
      while (rs.next()) {
        secrets.add(rs.getString(1));
      }
    }
    return secrets;
  }
}
