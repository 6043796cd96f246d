package dev.toolledger.jdbc.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.testkit.pg.PgFaultPoint;
import dev.toolledger.testkit.pg.PgFaultProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fault proxy itself, against the real server: each fault does what it says, and no more. */
class PgFaultProxyTest {
  private PostgresTestDatabase db;
  private PgFaultProxy proxy;

  @BeforeEach
  void setUp() throws SQLException {
    db = PostgresTestDatabase.create();
    try (Connection c = db.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE items (id INTEGER PRIMARY KEY)");
    }
    proxy = PgFaultProxy.inFrontOf(db.url());
  }

  @AfterEach
  void tearDown() {
    proxy.close();
    db.close();
  }

  private Connection viaProxy() throws SQLException {
    return DriverManager.getConnection(proxy.route(db.url()) + "&socketTimeout=2");
  }

  private int rows() throws SQLException {
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM items")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void forwardsStatementsBothWaysWithoutFaults() throws SQLException {
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      for (int i = 0; i < 7; i++) {
        st.executeUpdate("INSERT INTO items VALUES (" + i + ")");
      }
    }
    assertThat(rows()).isEqualTo(7);
    assertThat(proxy.resets() + proxy.stalls() + proxy.refused()).isZero();
  }

  @Test
  void resetBeforeAStatementLosesItAndCountsTheReset() throws SQLException {
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      st.executeUpdate("INSERT INTO items VALUES (1)");
      proxy.resetNext(PgFaultPoint.BEFORE_STATEMENT, "insert into items");
      assertThatThrownBy(() -> st.executeUpdate("INSERT INTO items VALUES (2)"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).startsWith("08"));
    }
    assertThat(rows()).isEqualTo(1);
    assertThat(proxy.resets()).isEqualTo(1);
    assertThat(proxy.armed()).isFalse();
  }

  @Test
  void resetMidTransactionWaitsForAnOpenTransactionAndRollsItBack() throws SQLException {
    proxy.resetNext(PgFaultPoint.MID_TRANSACTION);
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      st.executeUpdate("INSERT INTO items VALUES (1)"); // auto-commit: no transaction, no fault
      c.setAutoCommit(false);
      st.executeUpdate("INSERT INTO items VALUES (2)"); // sent with BEGIN: not yet mid-transaction
      assertThat(proxy.armed()).isTrue();
      assertThatThrownBy(() -> st.executeUpdate("INSERT INTO items VALUES (3)"))
          .isInstanceOf(SQLException.class);
    }
    assertThat(rows()).isEqualTo(1);
    assertThat(proxy.resets()).isEqualTo(1);
  }

  @Test
  void resetAfterCommitSentCommitsAndLosesTheAnswer() throws SQLException {
    proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT);
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      st.executeUpdate("INSERT INTO items VALUES (1)");
      assertThatThrownBy(c::commit)
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).startsWith("08"));
    }
    assertThat(rows()).isEqualTo(1);
    assertThat(proxy.resets()).isEqualTo(1);
  }

  @Test
  void commitSentWithTheLastStatementInOneRoundTripIsFound() throws SQLException {
    proxy.resetNext(PgFaultPoint.AFTER_COMMIT_SENT);
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      st.executeUpdate("INSERT INTO items VALUES (1)");
      assertThatThrownBy(() -> st.execute("INSERT INTO items VALUES (2); COMMIT"))
          .isInstanceOf(SQLException.class);
    }
    assertThat(rows()).isEqualTo(2);
  }

  @Test
  void aStallHoldsEveryConnectionUntilHealed() throws Exception {
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      st.executeUpdate("INSERT INTO items VALUES (1)");
      proxy.stall();
      long started = System.nanoTime();
      assertThatThrownBy(() -> st.executeUpdate("INSERT INTO items VALUES (2)"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).startsWith("08"));
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThan(Duration.ofSeconds(1));
    }
    CompletableFuture<Integer> opened =
        CompletableFuture.supplyAsync(
            () -> {
              try (Connection c = viaProxy();
                  Statement st = c.createStatement()) {
                return st.executeUpdate("INSERT INTO items VALUES (3)");
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
    Thread.sleep(300);
    assertThat(opened).isNotDone();
    proxy.heal();
    assertThat(opened.get(5, TimeUnit.SECONDS)).isEqualTo(1);
    // The statement held while stalled reached the server once healed, after its client gave up.
    assertThat(rows()).isBetween(2, 3);
    assertThat(proxy.stalls()).isEqualTo(1);
  }

  @Test
  void aTimedStallEndsByItself() throws SQLException {
    proxy.stall(Duration.ofMillis(500));
    long started = System.nanoTime();
    try (Connection c = viaProxy();
        Statement st = c.createStatement()) {
      st.executeUpdate("INSERT INTO items VALUES (1)");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isBetween(Duration.ofMillis(400), Duration.ofSeconds(2));
  }

  @Test
  void aStalledCommitCommitsAndAnswersOnlyOnceHealed() throws Exception {
    proxy.stallNext(PgFaultPoint.AFTER_COMMIT_SENT, "");
    try (Connection c = DriverManager.getConnection(proxy.route(db.url()))) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("INSERT INTO items VALUES (1)");
      }
      CompletableFuture<Void> commit =
          CompletableFuture.runAsync(
              () -> {
                try {
                  c.commit();
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (rows() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(rows()).isEqualTo(1);
      assertThat(commit).isNotDone();
      proxy.heal();
      commit.get(5, TimeUnit.SECONDS);
    }
    assertThat(proxy.stalls()).isEqualTo(1);
  }

  @Test
  void refusedConnectionsFailUntilHealed() throws SQLException {
    proxy.refuseNew(true);
    assertThatThrownBy(this::viaProxy)
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).startsWith("08"));
    assertThat(proxy.refused()).isEqualTo(1);
    proxy.heal();
    try (Connection c = viaProxy()) {
      assertThat(c.isValid(2)).isTrue();
    }
  }

  @Test
  void resetAllBreaksEveryOpenConnection() throws SQLException {
    try (Connection a = viaProxy();
        Connection b = viaProxy()) {
      assertThat(proxy.openConnections()).isEqualTo(2);
      proxy.resetAll();
      assertThat(a.isValid(2)).isFalse();
      assertThat(b.isValid(2)).isFalse();
    }
    assertThat(proxy.resets()).isEqualTo(2);
  }
}
