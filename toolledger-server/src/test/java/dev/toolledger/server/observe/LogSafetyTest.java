package dev.toolledger.server.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** What survives of a failure made safe to log: classes, SQLStates, stack frames; no messages. */
class LogSafetyTest {
  @Test
  void messagesOfTheFailureItsCausesAndSuppressedAreWithheld() {
    SQLException cause =
        new SQLException("Key (tenant, op_key)=(acme, secret-key) already exists", "23505");
    IllegalStateException failure = new IllegalStateException("title was secret-title", cause);
    failure.addSuppressed(new RuntimeException("secret-suppressed"));

    Throwable safe = LogSafety.withoutMessages(failure);

    assertThat(safe.getMessage())
        .isEqualTo("java.lang.IllegalStateException [message withheld]")
        .doesNotContain("secret");
    assertThat(safe.getStackTrace()).isEqualTo(failure.getStackTrace());
    assertThat(safe.getCause().getMessage())
        .isEqualTo("java.sql.SQLException (SQLState 23505) [message withheld]");
    assertThat(safe.getSuppressed()[0].getMessage()).doesNotContain("secret");
  }

  @Test
  void aCycleOfCausesEnds() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);

    Throwable safe = LogSafety.withoutMessages(a);

    assertThat(safe.getCause().getCause()).isSameAs(safe);
    assertThat(LogSafety.withoutMessages(null)).isNull();
  }
}
