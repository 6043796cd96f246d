package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL the history rows a transaction appends are sent with its COMMIT, in one round trip
 * (an effect outside the database is claimed in one transaction and recorded in another, each with
 * a history row). What that must not change: the rows commit with the transaction or not at all, in
 * the order they were appended, and whatever the transaction does next sees them sent first.
 */
class PostgresHistoryWithCommitTest {
  private static final TenantId ACME = TenantId.of("acme");
  private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MILLIS);

  private PostgresTestDatabase database;
  private JdbcLedgerStore store;

  @BeforeEach
  void open() {
    database = PostgresTestDatabase.create();
    store = JdbcLedgerStore.postgres(database.options().poolSize(2).build());
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
        new OperationIntent("send-mail", "1", new Fingerprint("cd".repeat(32))),
        NOW);
  }

  private static HistoryEntry entry(String cause) {
    return new HistoryEntry(
        NOW, Optional.empty(), OperationState.IN_PROGRESS, cause, "node:test", 1);
  }

  private static void claim(LedgerTransaction tx, String key) {
    assertThat(
            tx.claimLeased(
                operation(key),
                new LeaseClaim("node:test/1", Duration.ofMinutes(1), "{}"),
                Duration.ofSeconds(5)))
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void heldBackRowsCommitWithTheTransactionInTheOrderTheyWereAppended() {
    long commitsBefore = store.commits();

    store.inTransaction(
        tx -> {
          claim(tx, "h-1");
          tx.appendHistory(ACME, OperationKey.of("h-1"), entry("first"));
          tx.appendHistory(ACME, OperationKey.of("h-1"), entry("second"));
          // Both wait to go with the COMMIT: no round trip of their own.
          assertThat(((JdbcTransaction) tx).historyHeldBack()).isEqualTo(2);
          return null;
        });

    assertThat(store.history(ACME, OperationKey.of("h-1")))
        .extracting(HistoryEntry::cause)
        .containsExactly("first", "second");
    assertThat(store.find(ACME, OperationKey.of("h-1"))).isPresent();
    assertThat(store.commits() - commitsBefore).isEqualTo(1);
  }

  @Test
  void aStatementAfterTheRowsSendsThemFirst() {
    store.inTransaction(
        tx -> {
          claim(tx, "h-2");
          tx.appendHistory(ACME, OperationKey.of("h-2"), entry("claimed"));
          // The transaction's own connection sees the row: it was sent before this statement.
          try (Statement st = tx.connection().createStatement();
              var rs =
                  st.executeQuery("SELECT cause FROM tl_operation_history WHERE op_key = 'h-2'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("claimed");
          } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
          }
          tx.appendHistory(ACME, OperationKey.of("h-2"), entry("after"));
          return null;
        });

    assertThat(store.history(ACME, OperationKey.of("h-2")))
        .extracting(HistoryEntry::cause)
        .containsExactly("claimed", "after");
  }

  @Test
  void aRowTheServerRefusesAbortsTheCommitAndLeavesNothing() throws Exception {
    // A trigger stands in for any error of the held-back insert (a full disk, a constraint): the
    // server must skip the COMMIT sent with it, so the claim is not committed without its row.
    try (Connection connection = database.connect();
        Statement st = connection.createStatement()) {
      st.execute("SET search_path = " + database.schema());
      st.execute(
          "CREATE FUNCTION refuse_history() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN IF NEW.cause = 'refused' THEN RAISE EXCEPTION 'refused by the test';"
              + " END IF; RETURN NEW; END $$");
      st.execute(
          "CREATE TRIGGER refuse_history BEFORE INSERT ON tl_operation_history"
              + " FOR EACH ROW EXECUTE FUNCTION refuse_history()");
    }

    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      claim(tx, "h-3");
                      tx.appendHistory(ACME, OperationKey.of("h-3"), entry("refused"));
                      return null;
                    }))
        .hasStackTraceContaining("refused by the test");

    assertThat(store.find(ACME, OperationKey.of("h-3"))).isEmpty();
    assertThat(store.history(ACME, OperationKey.of("h-3"))).isEmpty();
    // The connection went back to the pool usable: the next transaction commits normally.
    store.inTransaction(
        tx -> {
          claim(tx, "h-4");
          tx.appendHistory(ACME, OperationKey.of("h-4"), entry("fine"));
          return null;
        });
    assertThat(store.history(ACME, OperationKey.of("h-4"))).hasSize(1);
  }

  @Test
  void aTransactionThatFailsAfterAppendingLeavesNoRow() {
    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      claim(tx, "h-5");
                      tx.appendHistory(ACME, OperationKey.of("h-5"), entry("never"));
                      throw new IllegalStateException("the work failed");
                    }))
        .hasMessageContaining("the work failed");

    assertThat(store.find(ACME, OperationKey.of("h-5"))).isEmpty();
    assertThat(store.history(ACME, OperationKey.of("h-5"))).isEmpty();
  }
}
