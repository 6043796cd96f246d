package dev.toolledger.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransactionControlTest {
  @Test
  void aStatementThatWouldEndTheTransactionIsFoundAtTheStartOfAnyStatementOfTheText() {
    assertThat(TransactionControl.find("COMMIT")).isEqualTo("COMMIT");
    assertThat(TransactionControl.find("  -- why\n commit;")).isEqualTo("COMMIT");
    assertThat(TransactionControl.find("/* x */ END TRANSACTION")).isEqualTo("END");
    assertThat(TransactionControl.find("SELECT 1; ROLLBACK")).isEqualTo("ROLLBACK");
    assertThat(TransactionControl.find("rollback work")).isEqualTo("ROLLBACK");
    assertThat(TransactionControl.find("BEGIN IMMEDIATE")).isEqualTo("BEGIN");
    assertThat(TransactionControl.find("START TRANSACTION")).isEqualTo("START");
    assertThat(TransactionControl.find("ABORT")).isEqualTo("ABORT");
    assertThat(TransactionControl.find("PREPARE TRANSACTION 'x'")).isEqualTo("PREPARE");
  }

  @Test
  void dataStatementsSavepointsLiteralsAndFunctionBodiesAreNotTransactionControl() {
    assertThat(TransactionControl.find("INSERT INTO t (a) VALUES ('x; COMMIT')")).isNull();
    assertThat(TransactionControl.find("UPDATE \"commit\" SET \"end\" = 1")).isNull();
    assertThat(TransactionControl.find("SAVEPOINT s; ROLLBACK TO SAVEPOINT s; RELEASE s")).isNull();
    assertThat(TransactionControl.find("ROLLBACK TRANSACTION TO s")).isNull();
    assertThat(TransactionControl.find("PREPARE q AS SELECT 1")).isNull();
    assertThat(TransactionControl.find("DO $$ BEGIN PERFORM 1; END $$")).isNull();
    assertThat(TransactionControl.find("SELECT $body$ ; COMMIT $body$")).isNull();
    assertThat(TransactionControl.find("SELECT commit_id FROM builds")).isNull();
  }
}
