package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.testing.ImmutableFiles;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real storage faults under a running SQLite store, and its recovery without a restart.
 *
 * <p>Root ignores file modes, so the faults are made otherwise: {@code chattr +i} on the database
 * and its WAL file (the connection that was open fails its commit with SQLITE_IOERR_WRITE, a
 * connection opened during the fault is opened read-only and fails every write with
 * SQLITE_READONLY, for good); and moving the database file away or replacing it under the store.
 * The {@code chattr} test is skipped where the file system or the user cannot make a file
 * immutable.
 */
class SqliteStorageFaultTest {
  private static final TenantId TENANT = TenantId.of("acme");

  @TempDir Path dir;

  @Test
  void unwritableFileIsTheLedgersFaultAndWritesResumeOnceItIsWritableAgain() throws Exception {
    Path file = dir.resolve("ledger.db");
    try (JdbcLedgerStore store = open(file)) {
      LedgerEngine engine = engine(store);
      assertThat(create(engine, "before")).isInstanceOf(ExecutionOutcome.Executed.class);
      Path wal = Path.of(file + "-wal");
      assertThat(wal).exists();
      ImmutableFiles.makeImmutableOrSkip(file, wal);
      try {
        // The pool grows during the fault, as it does under load: those connections are opened
        // read-only and stay so.
        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          held.add(store.dataSource().getConnection());
        }
        for (Connection c : held) {
          c.close();
        }

        assertThatThrownBy(() -> create(engine, "during"))
            .as("a write during the fault is the ledger's failure, not the tool's")
            .isInstanceOf(StoreUnavailableException.class)
            .isNotInstanceOf(ToolExecutionException.class);
        assertThat(store.probeWrite()).get().asString().startsWith("the ledger cannot write");
      } finally {
        ImmutableFiles.makeWritable(file, wal);
      }

      assertThat(store.probeWrite()).as("health once the file is writable again").isEmpty();
      for (int i = 0; i < 8; i++) {
        assertThat(create(engine, "after-" + i)).isInstanceOf(ExecutionOutcome.Executed.class);
      }
      assertThat(create(engine, "during"))
          .as("the key of the failed write stayed free")
          .isInstanceOf(ExecutionOutcome.Executed.class);
      assertThat(count(file, "SELECT COUNT(*) FROM test_items")).isEqualTo(10);
    }
  }

  @Test
  void removedDatabaseFileStopsWritesAndPuttingItBackResumesThem() throws Exception {
    Path file = dir.resolve("ledger.db");
    Path aside = dir.resolve("aside.db");
    try (JdbcLedgerStore store = open(file)) {
      LedgerEngine engine = engine(store);
      assertThat(create(engine, "before")).isInstanceOf(ExecutionOutcome.Executed.class);

      Files.move(file, aside);
      assertThatThrownBy(() -> create(engine, "gone"))
          .as("no write into a file that is no longer there")
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(store.probeWrite())
          .hasValue("the ledger cannot write: its database file is missing");
      assertThat(file).as("the store does not create an empty ledger in its place").doesNotExist();

      Files.move(aside, file);
      assertThat(store.probeWrite()).isEmpty();
      assertThat(create(engine, "gone")).isInstanceOf(ExecutionOutcome.Executed.class);
      assertThat(count(file, "SELECT COUNT(*) FROM test_items")).isEqualTo(2);
    }
  }

  @Test
  void replacedDatabaseFileIsReopenedAndWrittenTo() throws Exception {
    Path file = dir.resolve("ledger.db");
    try (JdbcLedgerStore store = open(file)) {
      LedgerEngine engine = engine(store);
      assertThat(create(engine, "before")).isInstanceOf(ExecutionOutcome.Executed.class);
      Path copy = dir.resolve("copy.db");
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
          Statement st = c.createStatement()) {
        st.execute("VACUUM INTO '" + copy + "'");
      }

      // A restore under the running node: a new file (a new inode) at the same path.
      Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING);
      Files.deleteIfExists(Path.of(file + "-wal"));
      Files.deleteIfExists(Path.of(file + "-shm"));
      assertThat(create(engine, "after")).isInstanceOf(ExecutionOutcome.Executed.class);

      assertThat(count(file, "SELECT COUNT(*) FROM test_items WHERE name = 'after'"))
          .as("the write went into the file now at the path, not the one that was replaced")
          .isEqualTo(1);
    }
  }

  @Test
  void toolThrowingAStorageCodeOfItsOwnStaysToolFailed() throws Exception {
    try (JdbcLedgerStore store = open(dir.resolve("ledger.db"))) {
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(new OwnReadOnlyError())).build();
      assertThatThrownBy(
              () ->
                  engine.execute(
                      Invocation.of(TENANT, OperationKey.of("k"), "own-error", Json.object())))
          .as("SQLITE_READONLY from somewhere else than the ledger's connection is the tool's")
          .isInstanceOf(ToolExecutionException.class);
      assertThat(store.probeWrite()).isEmpty();
    }
  }

  @Test
  void externalEffectWhoseRecordMeetsAStorageFaultStaysClaimedForRecovery() throws Exception {
    Path file = dir.resolve("ledger.db");
    Path aside = dir.resolve("aside.db");
    try (JdbcLedgerStore store = open(file)) {
      // The downstream acts, and the ledger's file disappears before the outcome is written.
      ExternalTool send =
          new ExternalTool() {
            @Override
            public ToolDescriptor descriptor() {
              return ToolDescriptor.builder("send", "1")
                  .description("Sends, and loses the ledger's disk meanwhile.")
                  .inputSchema(Json.parse("{\"type\":\"object\"}"))
                  .build();
            }

            @Override
            public EffectResult perform(EffectContext context, JsonNode parameters)
                throws Exception {
              Files.move(file, aside);
              return EffectResult.done(ToolResponse.of(201, Json.object().put("sent", true)));
            }
          };
      LedgerEngine engine = LedgerEngine.builder(store, ToolRegistry.of(send)).build();

      ExecutionOutcome outcome =
          engine.execute(Invocation.of(TENANT, OperationKey.of("s-1"), "send", Json.object()));

      assertThat(outcome)
          .as("the effect happened: not 'nothing was recorded' but in progress, for recovery")
          .isInstanceOf(ExecutionOutcome.InProgress.class);
      Files.move(aside, file);
      assertThat(store.find(TENANT, OperationKey.of("s-1")))
          .get()
          .extracting(OperationRecord::state)
          .isEqualTo(OperationState.IN_PROGRESS);
    }
  }

  /** Throws a SQLException carrying SQLITE_READONLY that no ledger connection raised. */
  private static final class OwnReadOnlyError implements TransactionalTool {
    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("own-error", "1")
          .description("Fails with a database error of its own.")
          .inputSchema(Json.parse("{\"type\":\"object\"}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters)
        throws SQLException {
      throw new SQLException("the tool's own database is read-only", null, 8);
    }
  }

  private static JdbcLedgerStore open(Path file) {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(file).poolSize(6).migrations(ItemsTool.MIGRATIONS).build());
  }

  private static LedgerEngine engine(JdbcLedgerStore store) {
    return LedgerEngine.builder(store, ToolRegistry.of(new ItemsTool()))
        .config(EngineConfig.builder().transactionAttempts(1).build())
        .build();
  }

  private static ExecutionOutcome create(LedgerEngine engine, String name) {
    return engine.execute(
        Invocation.of(
            TENANT,
            OperationKey.of(name),
            "create-item",
            Json.parse("{\"name\":\"" + name + "\"}")));
  }

  private static long count(Path file, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
