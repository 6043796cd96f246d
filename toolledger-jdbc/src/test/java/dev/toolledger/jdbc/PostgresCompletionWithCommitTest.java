package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL a claimed operation's completed record is inserted with the COMMIT, in one round
 * trip. What that must not change: the effect and the record commit together or not at all, and
 * anything the transaction does after recording the outcome sees it.
 */
class PostgresCompletionWithCommitTest {
  private static final TenantId ACME = TenantId.of("acme");

  private PostgresTestDatabase database;
  private JdbcLedgerStore store;

  @BeforeEach
  void open() {
    database = PostgresTestDatabase.create();
    store =
        JdbcLedgerStore.postgres(
            database.options().poolSize(2).migrations(ItemsTool.MIGRATIONS).build());
  }

  @AfterEach
  void close() {
    store.close();
    database.close();
  }

  private static NewOperation operation(String key) {
    return new NewOperation(
        ACME,
        OperationKey.of(key),
        new OperationIntent("create-item", "1", new Fingerprint("ab".repeat(32))),
        Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  private static final StoredResponse RESPONSE = new StoredResponse(201, "{\"id\":1}");

  private static void insertItem(Connection connection, String name) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement("INSERT INTO test_items (tenant, name) VALUES (?, ?)")) {
      ps.setString(1, ACME.value());
      ps.setString(2, name);
      ps.executeUpdate();
    }
  }

  private long items(String name) throws SQLException {
    try (Connection connection = store.dataSource().getConnection();
        PreparedStatement ps =
            connection.prepareStatement("SELECT COUNT(*) FROM test_items WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void effectAndRecordCommitTogetherInOneTransaction() throws SQLException {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    long commitsBefore = store.commits();

    store.inTransaction(
        tx -> {
          assertThat(tx.claim(operation("k-1"), Duration.ofSeconds(5)))
              .isInstanceOf(ClaimResult.Claimed.class);
          try {
            insertItem(tx.connection(), "one");
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
          tx.complete(ACME, OperationKey.of("k-1"), RESPONSE, now, now.plus(Duration.ofDays(1)));
          return null;
        });

    OperationRecord record = store.find(ACME, OperationKey.of("k-1")).orElseThrow();
    assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
    assertThat(record.response()).contains(RESPONSE);
    assertThat(record.completedAt()).contains(now);
    assertThat(items("one")).isEqualTo(1);
    assertThat(store.commits() - commitsBefore).isEqualTo(1);
    // The pooled connection was handed back outside any transaction: the next caller's
    // transaction starts clean and commits on its own.
    store.inTransaction(
        tx -> {
          try {
            insertItem(tx.connection(), "two");
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
          return null;
        });
    assertThat(items("two")).isEqualTo(1);
  }

  @Test
  void whatTheTransactionDoesAfterRecordingTheOutcomeSeesIt() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    Optional<OperationRecord> seen =
        store.inTransaction(
            tx -> {
              tx.claim(operation("k-2"), Duration.ofSeconds(5));
              tx.complete(ACME, OperationKey.of("k-2"), RESPONSE, now, now.plusSeconds(60));
              return tx.find(ACME, OperationKey.of("k-2"));
            });

    assertThat(seen).map(OperationRecord::state).contains(OperationState.COMPLETED);
    assertThat(store.find(ACME, OperationKey.of("k-2")).map(OperationRecord::state))
        .contains(OperationState.COMPLETED);
  }

  @Test
  void aRecordThatAppearedBesideTheKeysLockRollsTheEffectBackAndAsksForARetry()
      throws SQLException {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    // Another connection, which does not wait for the key's lock (as no path of the store does),
    // records the key while this transaction runs: the completed record's insert meets the primary
    // key with the COMMIT, and the effect must not commit without its record.
    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      tx.claim(operation("k-3"), Duration.ofSeconds(5));
                      try (Connection other = store.dataSource().getConnection();
                          PreparedStatement ps =
                              other.prepareStatement(
                                  "INSERT INTO tl_operations (tenant, op_key, state, created_at,"
                                      + " fence) VALUES (?, ?, 'NOT_EXECUTED', 0, 0)")) {
                        ps.setString(1, ACME.value());
                        ps.setString(2, "k-3");
                        ps.executeUpdate();
                        insertItem(tx.connection(), "three");
                      } catch (SQLException e) {
                        throw new IllegalStateException(e);
                      }
                      tx.complete(ACME, OperationKey.of("k-3"), RESPONSE, now, now.plusSeconds(60));
                      return null;
                    }))
        .isInstanceOf(TransientStoreException.class)
        .hasMessageContaining("recorded by another writer");

    assertThat(items("three")).isZero();
    assertThat(store.find(ACME, OperationKey.of("k-3")).orElseThrow().state())
        .isEqualTo(OperationState.NOT_EXECUTED);
  }

  @Test
  void anOutcomeForAKeyTheTransactionDidNotClaimIsRefused() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      tx.complete(ACME, OperationKey.of("k-4"), RESPONSE, now, now.plusSeconds(60));
                      return null;
                    }))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("not claimed by this transaction");
    assertThat(store.find(ACME, OperationKey.of("k-4"))).isEmpty();
  }
}
