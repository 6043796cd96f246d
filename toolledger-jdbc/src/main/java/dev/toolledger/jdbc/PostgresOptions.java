package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How to open a PostgreSQL ledger. Immutable; build with {@link #builder(String)}.
 *
 * <p>Several stateless nodes may open the same database: each keeps its own pool, so the server
 * sees up to (nodes x {@link #poolSize()}) connections, which must stay below its {@code
 * max_connections}. {@link #toString()} never shows the password, not even one written into the
 * URL.
 */
public final class PostgresOptions {
  /** The prefix every URL must have: {@value}. */
  public static final String URL_PREFIX = "jdbc:postgresql:";

  /** Default pool size: 10 connections per node. */
  public static final int DEFAULT_POOL_SIZE = 10;

  /**
   * Default longest wait for a pooled connection: 5 seconds. A request that gets none in time is
   * treated like any transient database error (retried, then answered "busy").
   */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Default longest wait of a claim for a concurrent transaction on the same key: 5 seconds, the
   * engine's default {@code maxWait}.
   */
  public static final Duration DEFAULT_CLAIM_WAIT = Duration.ofSeconds(5);

  /**
   * Default bound on one statement of the ledger's connections, and on a transaction left idle by
   * its client: twice the claim wait (10 seconds with the default claim wait).
   */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = DEFAULT_CLAIM_WAIT.multipliedBy(2);

  /**
   * Default longest wait for any answer of the server on a connection: the statement timeout plus 5
   * seconds (15 seconds with the defaults), so that a statement the server cuts short answers first
   * and only a link that stalled meets it.
   */
  public static final Duration DEFAULT_SOCKET_TIMEOUT =
      DEFAULT_STATEMENT_TIMEOUT.plus(Duration.ofSeconds(5));

  private static final Duration SOCKET_MARGIN = Duration.ofSeconds(5);

  // Any URL parameter whose name ends in "password" (password, sslpassword) is a secret.
  private static final Pattern SECRET_PARAMETER = Pattern.compile("(?i)([?&][a-z]*password=)[^&]*");
  private static final Pattern USER_PARAMETER = Pattern.compile("(?i)[?&]user=");
  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)[?&]password=");

  private final String url;
  private final Optional<String> user;
  private final Optional<String> password;
  private final int poolSize;
  private final Duration connectionTimeout;
  private final Duration claimWait;
  private final Duration statementTimeout;
  private final Duration socketTimeout;
  private final List<SchemaMigrations> migrations;

  private PostgresOptions(Builder b, Duration statementTimeout, Duration socketTimeout) {
    this.url = b.url;
    this.user = Optional.ofNullable(b.user);
    this.password = Optional.ofNullable(b.password);
    this.poolSize = b.poolSize;
    this.connectionTimeout = b.connectionTimeout;
    this.claimWait = b.claimWait;
    this.statementTimeout = statementTimeout;
    this.socketTimeout = socketTimeout;
    this.migrations = List.copyOf(b.migrations);
  }

  /**
   * @param url a PgJDBC URL, {@code jdbc:postgresql://host:port/database?param=value...}; a {@code
   *     currentSchema} parameter selects the schema the ledger's tables live in
   */
  public static Builder builder(String url) {
    return new Builder(url);
  }

  /** The JDBC URL as given. May contain a password; log {@link #redactedUrl()} instead. */
  public String url() {
    return url;
  }

  /** The URL with the value of every password parameter replaced by {@code ***}. */
  public String redactedUrl() {
    return redact(url);
  }

  public Optional<String> user() {
    return user;
  }

  public Optional<String> password() {
    return password;
  }

  public int poolSize() {
    return poolSize;
  }

  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  /** How long a claim waits for another transaction on its key (the engine's maxWait). */
  public Duration claimWait() {
    return claimWait;
  }

  /**
   * The {@code statement_timeout} and {@code idle_in_transaction_session_timeout} of every pooled
   * connection; zero when none is set.
   */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  /** The longest wait for an answer on a connection (PgJDBC's socketTimeout); zero for none. */
  public Duration socketTimeout() {
    return socketTimeout;
  }

  /** Migrations of tools' own tables, applied after the ledger's. */
  public List<SchemaMigrations> migrations() {
    return migrations;
  }

  static String redact(String url) {
    return SECRET_PARAMETER.matcher(url).replaceAll("$1***");
  }

  @Override
  public String toString() {
    return "PostgresOptions[url="
        + redactedUrl()
        + ", user="
        + user.orElse("(from URL or driver default)")
        + ", password="
        + (password.isPresent() ? "***" : "(none)")
        + ", poolSize="
        + poolSize
        + ", connectionTimeout="
        + connectionTimeout
        + ", claimWait="
        + claimWait
        + ", statementTimeout="
        + statementTimeout
        + ", socketTimeout="
        + socketTimeout
        + ", migrations="
        + migrations.stream().map(SchemaMigrations::component).toList()
        + "]";
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private final String url;
    private String user;
    private String password;
    private int poolSize = DEFAULT_POOL_SIZE;
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    private Duration claimWait = DEFAULT_CLAIM_WAIT;
    private Duration statementTimeout;
    private Duration socketTimeout;
    private final List<SchemaMigrations> migrations = new ArrayList<>();

    private Builder(String url) {
      this.url = url;
    }

    /** The database user. Default: none (the URL's {@code user} parameter or the driver's). */
    public Builder user(String user) {
      this.user = user;
      return this;
    }

    /** The user's password. Default: none (trust or certificate authentication). */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /** Pooled connections of this node. Default 10. */
    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    /** Longest wait for a free pooled connection. Default 5 seconds; at least 250 ms. */
    public Builder connectionTimeout(Duration connectionTimeout) {
      this.connectionTimeout = connectionTimeout;
      return this;
    }

    /**
     * How long a claim waits for a concurrent transaction on the same key: set it to the engine's
     * {@code maxWait}. Each claim sets its own wait as the {@code lock_timeout} of its lock alone;
     * this value sizes the default statement and socket timeouts. Default 5 seconds.
     */
    public Builder claimWait(Duration claimWait) {
      this.claimWait = claimWait;
      return this;
    }

    /**
     * The longest a statement of a pooled connection may run (a tool's statement waiting for a row
     * lock included), and the longest its transaction may sit idle while its client is silent (a
     * node whose link stalled): PostgreSQL's {@code statement_timeout} and {@code
     * idle_in_transaction_session_timeout}. A statement cut short (57014) rolls its transaction
     * back and the caller gets the ledger's retryable "busy". Must exceed the claim wait, since a
     * claim's wait is one statement; zero sets neither. Default twice the claim wait (10 s).
     */
    public Builder statementTimeout(Duration statementTimeout) {
      this.statementTimeout = statementTimeout;
      return this;
    }

    /**
     * The longest wait for any answer of the server (PgJDBC's {@code socketTimeout}, whole seconds,
     * rounded up): what bounds a request whose link stalled. The connection is then closed and the
     * pool drops it. Must exceed the statement timeout, so that a statement the server cuts short
     * answers first; zero for none. Default the statement timeout plus 5 seconds (15 s).
     */
    public Builder socketTimeout(Duration socketTimeout) {
      this.socketTimeout = socketTimeout;
      return this;
    }

    public Builder migrations(SchemaMigrations... components) {
      this.migrations.addAll(List.of(components));
      return this;
    }

    public Builder migrations(List<SchemaMigrations> components) {
      this.migrations.addAll(components);
      return this;
    }

    public PostgresOptions build() {
      Objects.requireNonNull(url, "url must not be null");
      if (!url.startsWith(URL_PREFIX)) {
        // The message shows only the scheme: the rest of a mistyped URL may hold a password.
        throw new IllegalArgumentException(
            "url must start with " + URL_PREFIX + " (jdbc:postgresql://host:port/database)");
      }
      if (user != null && (user.isBlank() || USER_PARAMETER.matcher(url).find())) {
        throw new IllegalArgumentException(
            user.isBlank()
                ? "user must not be blank"
                : "user is given both in the url and as an option; give it in one place");
      }
      if (password != null && PASSWORD_PARAMETER.matcher(url).find()) {
        throw new IllegalArgumentException(
            "password is given both in the url and as an option; give it in one place");
      }
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1");
      }
      if (connectionTimeout == null || connectionTimeout.toMillis() < 250) {
        throw new IllegalArgumentException("connectionTimeout must be at least 250 ms");
      }
      if (claimWait == null || claimWait.toMillis() < 1) {
        throw new IllegalArgumentException("claimWait must be at least 1 ms");
      }
      Duration statementTimeout =
          this.statementTimeout != null ? this.statementTimeout : claimWait.multipliedBy(2);
      if (statementTimeout.isNegative()
          || (!statementTimeout.isZero() && statementTimeout.compareTo(claimWait) <= 0)) {
        throw new IllegalArgumentException(
            "statementTimeout must exceed claimWait (a claim's wait is one statement), or be zero"
                + " for none");
      }
      Duration socketTimeout =
          this.socketTimeout != null
              ? this.socketTimeout
              : statementTimeout.isZero() ? Duration.ZERO : statementTimeout.plus(SOCKET_MARGIN);
      if (socketTimeout.isNegative()
          || (!socketTimeout.isZero()
              && socketTimeout.compareTo(statementTimeout.isZero() ? claimWait : statementTimeout)
                  <= 0)) {
        throw new IllegalArgumentException(
            "socketTimeout must exceed statementTimeout (and claimWait), or be zero for none");
      }
      return new PostgresOptions(this, statementTimeout, socketTimeout);
    }
  }
}
