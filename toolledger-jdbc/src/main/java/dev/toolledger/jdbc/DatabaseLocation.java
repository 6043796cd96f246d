package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.protocol.NotApi;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the ledger lives, as the command line and the environment name it.
 *
 * <p>{@link #resolve} reads the {@code --db} value and, when it is absent, {@value #URL_VARIABLE}.
 * A value starting with {@code jdbc:postgresql:} is a PostgreSQL database; {@value #USER_VARIABLE}
 * and {@value #PASSWORD_VARIABLE} then supply credentials, so that a password need not appear on a
 * command line. Any other value is the path of a SQLite file (a {@code jdbc:sqlite:} prefix is
 * accepted and dropped). With neither, the ledger is the SQLite file {@value
 * SqliteOptions#DEFAULT_PATH} in the working directory. Other URL schemes are refused rather than
 * taken for file names.
 */
@NotApi
public sealed interface DatabaseLocation {
  /** The database URL or SQLite path when {@code --db} is not given. */
  String URL_VARIABLE = "TOOLLEDGER_DB_URL";

  /** The PostgreSQL user, unless the URL names one. */
  String USER_VARIABLE = "TOOLLEDGER_DB_USER";

  /** The PostgreSQL password, unless the URL holds one. */
  String PASSWORD_VARIABLE = "TOOLLEDGER_DB_PASSWORD";

  /**
   * Decides where the ledger lives.
   *
   * @param dbOption the {@code --db} value, or null when not given; it wins over the environment
   * @param environment the process environment ({@code System.getenv()}); blank values count as
   *     unset
   * @throws IllegalArgumentException when the value is blank or a URL of an unsupported database
   */
  static DatabaseLocation resolve(String dbOption, Map<String, String> environment) {
    Objects.requireNonNull(environment, "environment");
    String value;
    String source;
    if (dbOption != null) {
      if (dbOption.isBlank()) {
        throw new IllegalArgumentException("--db must not be blank");
      }
      value = dbOption.strip();
      source = "--db";
    } else {
      Optional<String> fromEnvironment = variable(environment, URL_VARIABLE);
      value = fromEnvironment.orElse(SqliteOptions.DEFAULT_PATH);
      source = fromEnvironment.isPresent() ? URL_VARIABLE : "the default";
    }
    if (value.startsWith(PostgresOptions.URL_PREFIX)) {
      return new Postgres(
          value, variable(environment, USER_VARIABLE), variable(environment, PASSWORD_VARIABLE));
    }
    if (value.startsWith(SqliteFile.URL_PREFIX)) {
      value = value.substring(SqliteFile.URL_PREFIX.length());
    } else if (SqliteFile.OTHER_URL.matcher(value).find()) {
      throw new IllegalArgumentException(
          source
              + " names an unsupported database; give a "
              + PostgresOptions.URL_PREFIX
              + "//host:port/database URL or the path of a SQLite file");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(source + " names no SQLite file");
    }
    return new SqliteFile(Path.of(value));
  }

  private static Optional<String> variable(Map<String, String> environment, String name) {
    return Optional.ofNullable(environment.get(name)).map(String::strip).filter(v -> !v.isEmpty());
  }

  /**
   * Opens the ledger here and applies the ledger's and the given migrations.
   *
   * @param synchronous SQLite's commit durability; ignored for PostgreSQL
   * @param busyTimeout how long a SQLite writer waits for the write lock; ignored for PostgreSQL
   */
  default JdbcLedgerStore open(
      List<SchemaMigrations> migrations, Synchronous synchronous, Duration busyTimeout) {
    return open(migrations, synchronous, busyTimeout, PostgresOptions.DEFAULT_CLAIM_WAIT);
  }

  /**
   * As {@link #open(List, Synchronous, Duration)}, with the engine's wait for a concurrent
   * execution of a key, which PostgreSQL claims use as their lock_timeout.
   */
  JdbcLedgerStore open(
      List<SchemaMigrations> migrations,
      Synchronous synchronous,
      Duration busyTimeout,
      Duration claimWait);

  /** For logs and error messages; never contains a password. */
  String description();

  /** A SQLite file. */
  record SqliteFile(Path path) implements DatabaseLocation {
    static final String URL_PREFIX = "jdbc:sqlite:";
    // "scheme://..." or "jdbc:anything:": a URL, never meant as a file name.
    private static final Pattern OTHER_URL =
        Pattern.compile("^(?:[A-Za-z][A-Za-z0-9+.-]*://|jdbc:)");

    public SqliteFile {
      Objects.requireNonNull(path, "path");
    }

    @Override
    public JdbcLedgerStore open(
        List<SchemaMigrations> migrations,
        Synchronous synchronous,
        Duration busyTimeout,
        Duration claimWait) {
      return JdbcLedgerStore.sqlite(
          SqliteOptions.builder(path)
              .synchronous(synchronous)
              .busyTimeout(busyTimeout)
              .migrations(migrations)
              .build());
    }

    @Override
    public String description() {
      return "sqlite:" + path.toAbsolutePath();
    }
  }

  /**
   * A PostgreSQL database.
   *
   * @param user from {@value #USER_VARIABLE}; empty when the URL or the driver supplies it
   * @param password from {@value #PASSWORD_VARIABLE}; never shown by {@link #toString()}
   */
  record Postgres(String url, Optional<String> user, Optional<String> password)
      implements DatabaseLocation {
    public Postgres {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(password, "password");
    }

    /** Options for this database, to adjust (pool size) before opening. */
    public PostgresOptions.Builder options() {
      PostgresOptions.Builder builder = PostgresOptions.builder(url);
      user.ifPresent(builder::user);
      password.ifPresent(builder::password);
      return builder;
    }

    @Override
    public JdbcLedgerStore open(
        List<SchemaMigrations> migrations,
        Synchronous synchronous,
        Duration busyTimeout,
        Duration claimWait) {
      return JdbcLedgerStore.postgres(
          options().claimWait(claimWait).migrations(migrations).build());
    }

    @Override
    public String description() {
      String redacted = PostgresOptions.redact(url);
      return "postgresql:" + redacted.substring(PostgresOptions.URL_PREFIX.length());
    }

    @Override
    public String toString() {
      return "Postgres[url="
          + PostgresOptions.redact(url)
          + ", user="
          + user.orElse("(none)")
          + ", password="
          + (password.isPresent() ? "***" : "(none)")
          + "]";
    }
  }
}
