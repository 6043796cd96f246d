package dev.toolledger.server.plugins;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ReadContext;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.http.ReadEndpoint;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConnection;

/**
 * Serves a plugin's {@link ReadView} at {@code GET /v1/{path}} on its own pooled connection, made
 * read-only for the view (SQLite: {@code PRAGMA query_only}; PostgreSQL: a {@code READ ONLY}
 * transaction, rolled back afterwards), with a statement timeout (SQLite: a progress handler that
 * interrupts a statement past its deadline; PostgreSQL: {@code SET LOCAL statement_timeout}) and a
 * bound on the size of the answer. A write is refused by the database; a statement past the timeout
 * is answered {@code 503 read-view-timeout}; a larger answer {@code 500 read-view-too-large}.
 *
 * <p>The timeout bounds the view's statements, not Java code the view runs between them.
 */
final class ReadViewEndpoint implements ReadEndpoint {
  /** Default statement timeout of a read view: 5 seconds. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** Default bound on a read view's answer, as JSON: 1 MiB. */
  static final int DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

  private static final int SQLITE_INTERRUPT = 9;
  private static final String PG_QUERY_CANCELED = "57014";
  private static final Pattern PATH = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

  /** Paths the ledger's own API uses: a view may not shadow them. */
  private static final java.util.Set<String> RESERVED =
      java.util.Set.of("tools", "operations", "tokens", "outbox", "ops", "health");

  private final ReadView view;
  private final DataSource dataSource;
  private final SqlDialect dialect;
  private final Duration timeout;
  private final int maxAnswerBytes;

  ReadViewEndpoint(ReadView view, DataSource dataSource, SqlDialect dialect) {
    this(view, dataSource, dialect, DEFAULT_TIMEOUT, DEFAULT_MAX_ANSWER_BYTES);
  }

  ReadViewEndpoint(
      ReadView view,
      DataSource dataSource,
      SqlDialect dialect,
      Duration timeout,
      int maxAnswerBytes) {
    String path = view.path();
    if (path == null || !PATH.matcher(path).matches()) {
      throw new IllegalArgumentException(
          "read view path '" + path + "' must be lowercase letters, digits or '-' (1 to 64)");
    }
    if (RESERVED.contains(path)) {
      throw new IllegalArgumentException(
          "read view path '" + path + "' is taken by the ledger's own API; choose another");
    }
    if (timeout.isNegative() || timeout.isZero() || maxAnswerBytes < 1) {
      throw new IllegalArgumentException("a read view needs a positive timeout and answer bound");
    }
    this.view = view;
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.timeout = timeout;
    this.maxAnswerBytes = maxAnswerBytes;
  }

  @Override
  public String path() {
    return "/v1/" + view.path();
  }

  @Override
  public JsonNode read(Principal principal, Map<String, String> query) {
    TenantId tenant = principal.tenant();
    JsonNode answer;
    try (Connection connection = dataSource.getConnection()) {
      Runnable end = readOnly(connection);
      try {
        answer = view.read(new Context(tenant, connection, dialect), query);
      } finally {
        end.run();
      }
    } catch (IllegalArgumentException | Refused e) {
      throw e;
    } catch (SQLException e) {
      if (timedOut(e)) {
        throw new Refused(
            Problem.of(
                ProblemType.READ_VIEW_TIMEOUT,
                "read view "
                    + view.path()
                    + " ran past its statement timeout of "
                    + timeout.toMillis()
                    + " ms and was cancelled"));
      }
      throw new StoreException(
          "read view " + view.path() + " failed (SQLState " + e.getSQLState() + ")", e);
    } catch (Exception e) {
      throw new StoreException("read view " + view.path() + " failed", e);
    }
    checkSize(answer);
    return answer;
  }

  private boolean timedOut(SQLException e) {
    return dialect == SqlDialect.POSTGRESQL
        ? PG_QUERY_CANCELED.equals(e.getSQLState())
        : (e.getErrorCode() & 0xFF) == SQLITE_INTERRUPT;
  }

  /**
   * Makes the pooled connection read-only with a statement deadline for the view; the returned
   * action undoes both before the connection goes back to the pool (which lends it to writers).
   */
  private Runnable readOnly(Connection connection) throws SQLException {
    if (dialect == SqlDialect.POSTGRESQL) {
      connection.setAutoCommit(false);
      connection.setReadOnly(true);
      try (Statement st = connection.createStatement()) {
        // BEGIN READ ONLY was sent by the driver with this statement; LOCAL ends with it.
        st.execute("SET LOCAL statement_timeout = " + timeout.toMillis());
      }
      return () -> {
        try {
          connection.rollback();
          connection.setReadOnly(false);
          connection.setAutoCommit(true);
        } catch (SQLException e) {
          throw new StoreException("could not end a read view's transaction", e);
        }
      };
    }
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA query_only = 1");
    }
    SQLiteConnection sqlite =
        connection.isWrapperFor(SQLiteConnection.class)
            ? connection.unwrap(SQLiteConnection.class)
            : null;
    if (sqlite != null) {
      long deadline = System.nanoTime() + timeout.toNanos();
      ProgressHandler.setHandler(
          sqlite,
          1000,
          new ProgressHandler() {
            @Override
            protected int progress() {
              return System.nanoTime() - deadline > 0 ? 1 : 0;
            }
          });
    }
    return () -> {
      try {
        if (sqlite != null) {
          ProgressHandler.clearHandler(sqlite);
        }
        try (Statement st = connection.createStatement()) {
          st.execute("PRAGMA query_only = 0");
        }
      } catch (SQLException e) {
        throw new StoreException("could not make a read view's connection writable again", e);
      }
    };
  }

  /** Refuses an answer over the bound, counting its JSON bytes without keeping them. */
  private void checkSize(JsonNode answer) {
    long[] written = {0};
    OutputStream counter =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            add(1);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            add(len);
          }

          private void add(long n) throws IOException {
            written[0] += n;
            if (written[0] > maxAnswerBytes) {
              throw new IOException("over the bound");
            }
          }
        };
    try {
      Json.mapper().writeValue(counter, answer);
    } catch (IOException e) {
      throw new Refused(
          Problem.of(
              ProblemType.READ_VIEW_TOO_LARGE,
              "read view "
                  + view.path()
                  + " answered more than "
                  + maxAnswerBytes
                  + " bytes of JSON; ask for less (a smaller limit or page)"));
    }
  }

  private record Context(TenantId tenant, Connection connection, SqlDialect dialect)
      implements ReadContext {}
}
