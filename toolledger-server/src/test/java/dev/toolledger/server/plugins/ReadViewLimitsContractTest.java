package dev.toolledger.server.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.toolledger.api.ReadContext;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.http.ReadEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Read views on a real ledger database: they cannot write, a statement past the timeout is
 * cancelled and answered with a stable problem, an answer over the bound is refused, and the pooled
 * connection is writable again afterwards. Subclasses supply the database.
 */
abstract class ReadViewLimitsContractTest {
  static final Principal ACME = new Principal(TenantId.of("acme"), "t-1");

  JdbcLedgerStore store;

  abstract JdbcLedgerStore openStore();

  /** A statement that runs for far longer than the timeout. */
  abstract String slowQuery();

  @BeforeEach
  void open() throws Exception {
    store = openStore();
    execute("CREATE TABLE view_notes (tenant TEXT NOT NULL, body TEXT NOT NULL)");
    execute("INSERT INTO view_notes VALUES ('acme', 'mine'), ('globex', 'theirs')");
  }

  @AfterEach
  void close() {
    store.close();
  }

  void execute(String sql) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  long count(String sql) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  ReadViewEndpoint endpoint(ThrowingView view, Duration timeout, int maxBytes) {
    ReadView readView =
        new ReadView() {
          @Override
          public String path() {
            return "notes";
          }

          @Override
          public JsonNode read(ReadContext context, Map<String, String> query) throws Exception {
            return view.read(context);
          }
        };
    return new ReadViewEndpoint(readView, store.dataSource(), store.dialect(), timeout, maxBytes);
  }

  interface ThrowingView {
    JsonNode read(ReadContext context) throws Exception;
  }

  @Test
  void aViewThatWritesIsRefusedByTheDatabaseAndChangesNothing() throws Exception {
    ReadViewEndpoint writer =
        endpoint(
            context -> {
              try (Statement st = context.connection().createStatement()) {
                st.executeUpdate("UPDATE view_notes SET body = 'defaced'");
              }
              return Json.object();
            },
            Duration.ofSeconds(5),
            1024);

    assertThatThrownBy(() -> writer.read(ACME, Map.of())).isInstanceOf(StoreException.class);

    assertThat(count("SELECT count(*) FROM view_notes WHERE body = 'defaced'")).isZero();
    // The pool's connections write again for the ledger.
    for (int i = 0; i < 4; i++) {
      execute("INSERT INTO view_notes VALUES ('acme', 'later')");
    }
    assertThat(count("SELECT count(*) FROM view_notes WHERE body = 'later'")).isEqualTo(4);
  }

  @Test
  void aStatementPastTheTimeoutIsCancelledAndAnsweredAsReadViewTimeout() throws Exception {
    ReadViewEndpoint slow =
        endpoint(
            context -> {
              try (Statement st = context.connection().createStatement();
                  ResultSet rs = st.executeQuery(slowQuery())) {
                rs.next();
              }
              return Json.object();
            },
            Duration.ofMillis(300),
            1024);

    long started = System.nanoTime();
    assertThatThrownBy(() -> slow.read(ACME, Map.of()))
        .isInstanceOfSatisfying(
            ReadEndpoint.Refused.class,
            e -> assertThat(e.problem().type()).isEqualTo(ProblemType.READ_VIEW_TIMEOUT));
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    execute("INSERT INTO view_notes VALUES ('acme', 'after the timeout')");
  }

  @Test
  void anAnswerOverTheBoundIsRefusedAsReadViewTooLarge() {
    ReadViewEndpoint big =
        endpoint(
            context -> {
              ArrayNode rows = Json.mapper().createArrayNode();
              for (int i = 0; i < 1000; i++) {
                rows.add("x".repeat(100));
              }
              return Json.object().set("rows", rows);
            },
            Duration.ofSeconds(5),
            10_000);

    assertThatThrownBy(() -> big.read(ACME, Map.of()))
        .isInstanceOfSatisfying(
            ReadEndpoint.Refused.class,
            e -> assertThat(e.problem().type()).isEqualTo(ProblemType.READ_VIEW_TOO_LARGE));
  }

  @Test
  void aViewReadsItsTenantsRows() throws Exception {
    ReadViewEndpoint reader =
        endpoint(
            context -> {
              try (var ps =
                  context
                      .connection()
                      .prepareStatement("SELECT body FROM view_notes WHERE tenant = ?")) {
                ps.setString(1, context.tenant().value());
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  return Json.object().put("body", rs.getString(1));
                }
              }
            },
            Duration.ofSeconds(5),
            1024);

    assertThat(reader.read(ACME, Map.of()).get("body").asText()).isEqualTo("mine");
  }
}
