package dev.toolledger.guard;

import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.retry.RetryPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * What a guard needs: the node's MCP endpoint and a token, the journal file, and how long it waits
 * and retries. Immutable; {@link Builder#build()} rejects missing, bad or conflicting options and
 * names them. The token never appears in {@link #toString()}.
 *
 * @param endpoint the node's MCP endpoint, for example {@code http://127.0.0.1:8080/mcp}
 * @param token the node's bearer token for one tenant
 * @param journal the SQLite journal file (created if missing; its directory must exist)
 * @param session the journal's workflow id for this guard's actions: actions of one session are
 *     matched by the same-action rule, actions of other sessions never are
 * @param claimWindow how long an unanswered action stays claimable by an identical call
 * @param retryPolicy attempts, deadline, backoff and budget of each action
 * @param attemptTimeout the longest one attempt (one {@code tools/call}) may take
 * @param clock the wall clock of the claim window and of the journal's timestamps
 */
public record GuardConfig(
    URI endpoint,
    String token,
    Path journal,
    String session,
    Duration claimWindow,
    RetryPolicy retryPolicy,
    Duration attemptTimeout,
    Clock clock) {

  /** Default session (journal workflow id): {@value}. */
  public static final String DEFAULT_SESSION = "default";

  /**
   * Default claim window: 24 hours, the client's resend window ({@link
   * ToolLedgerClient#DEFAULT_RESEND_WINDOW}), well inside the node's default retention of 7 days.
   */
  public static final Duration DEFAULT_CLAIM_WINDOW = ToolLedgerClient.DEFAULT_RESEND_WINDOW;

  /** Default attempt timeout: {@link ToolLedgerClient#DEFAULT_ATTEMPT_TIMEOUT} (10 seconds). */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = ToolLedgerClient.DEFAULT_ATTEMPT_TIMEOUT;

  /**
   * Default retry policy: {@link RetryPolicy#defaults()}: 5 attempts, a 30 s deadline per call,
   * full-jitter backoff from 200 ms to 5 s, a budget of 20 retries refilled by 0.1 per answer. The
   * deadline stays below the 60 s request timeout of the TypeScript and Python MCP SDKs, so a host
   * hears the guard's own answer (unknown, with how to check) rather than its own timeout.
   */
  public static RetryPolicy defaultRetryPolicy() {
    return RetryPolicy.defaults();
  }

  public GuardConfig {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(claimWindow, "claimWindow");
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    Objects.requireNonNull(attemptTimeout, "attemptTimeout");
    Objects.requireNonNull(clock, "clock");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Without the token. */
  @Override
  public String toString() {
    return "GuardConfig[endpoint="
        + endpoint
        + ", journal="
        + journal
        + ", session="
        + session
        + ", claimWindow="
        + claimWindow
        + ", attemptTimeout="
        + attemptTimeout
        + "]";
  }

  /** Builds a {@link GuardConfig}; see each option for its default. */
  public static final class Builder {
    private URI endpoint;
    private String token;
    private Path journal;
    private String session = DEFAULT_SESSION;
    private Duration claimWindow = DEFAULT_CLAIM_WINDOW;
    private RetryPolicy retryPolicy = defaultRetryPolicy();
    private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * The node's MCP endpoint. Required. A URI without a path (or with {@code /}) gets {@code
     * /mcp}.
     */
    public Builder endpoint(URI endpoint) {
      this.endpoint = endpoint;
      return this;
    }

    /** The bearer token ({@code tl_...}). Required; never logged. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** The journal file. Required. */
    public Builder journal(Path journal) {
      this.journal = journal;
      return this;
    }

    /** The journal's workflow id for this guard. Default {@value #DEFAULT_SESSION}. */
    public Builder session(String session) {
      this.session = session;
      return this;
    }

    /**
     * How long an action without a definitive answer stays claimable by an identical call (same
     * tool, same canonical arguments). At most the client's resend window (24 h): beyond it the
     * node's record may have expired, so the action could not be safely sent again. Default 24
     * hours.
     */
    public Builder claimWindow(Duration claimWindow) {
      this.claimWindow = claimWindow;
      return this;
    }

    /** Default {@link RetryPolicy#defaults()}. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /** The longest one attempt may take. Default 10 seconds. */
    public Builder attemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = attemptTimeout;
      return this;
    }

    /** Default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public GuardConfig build() {
      if (endpoint == null) {
        throw new IllegalArgumentException("endpoint is required (the node's MCP URL)");
      }
      String scheme = endpoint.getScheme();
      if (!endpoint.isAbsolute()
          || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
          || endpoint.getHost() == null) {
        throw new IllegalArgumentException("endpoint must be an absolute http or https URL");
      }
      if (endpoint.getQuery() != null || endpoint.getFragment() != null) {
        throw new IllegalArgumentException("endpoint must not have a query or a fragment");
      }
      URI mcp =
          endpoint.getRawPath() == null
                  || endpoint.getRawPath().isEmpty()
                  || endpoint.getRawPath().equals("/")
              ? endpoint.resolve("/mcp")
              : endpoint;
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException(
            "token is required (from the TOOLLEDGER_TOKEN environment variable or --token-file)");
      }
      String trimmed = token.strip();
      if (trimmed.chars().anyMatch(c -> c < 0x21 || c > 0x7E)) {
        throw new IllegalArgumentException("token must be visible ASCII without spaces");
      }
      if (journal == null) {
        throw new IllegalArgumentException("journal is required (a file path)");
      }
      if (session == null || session.isBlank() || session.length() > 200) {
        throw new IllegalArgumentException("session must be 1 to 200 characters and not blank");
      }
      requirePositive("claimWindow", claimWindow);
      if (claimWindow.compareTo(ToolLedgerClient.DEFAULT_RESEND_WINDOW) > 0) {
        throw new IllegalArgumentException(
            "claimWindow must be at most the client's resend window ("
                + ToolLedgerClient.DEFAULT_RESEND_WINDOW.toHours()
                + " h): an older action cannot be safely sent again");
      }
      requirePositive("attemptTimeout", attemptTimeout);
      if (retryPolicy == null) {
        throw new IllegalArgumentException("retryPolicy must not be null");
      }
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      return new GuardConfig(
          mcp, trimmed, journal, session, claimWindow, retryPolicy, attemptTimeout, clock);
    }

    private static void requirePositive(String option, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive");
      }
    }
  }
}
