package dev.toolledger.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.journal.JournalException;
import dev.toolledger.client.journal.Recorded;
import dev.toolledger.client.retry.Retrier;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.client.retry.RetryResult;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.protocol.StoredResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent side of ToolLedger: every action is journaled with a key minted by the journal before
 * it is first sent, sent with that key, retried per the {@link RetryPolicy} with the same key, and
 * ends as {@link Outcome.Completed}, {@link Outcome.Rejected} or {@link Outcome.Unknown}.
 *
 * <pre>{@code
 * try (ActionJournal journal = ActionJournal.sqlite(Path.of("agent-journal.db"))) {
 *   ToolLedgerClient client = ToolLedgerClient.builder()
 *       .baseUri(URI.create("http://127.0.0.1:8080"))
 *       .token(System.getenv("TOOLLEDGER_TOKEN"))
 *       .journal(journal)
 *       .build();
 *   Outcome outcome = client.execute("chat-42", "step-3", "create-note", params);
 * }
 * }</pre>
 *
 * <p>Guarantees: an action's key never changes, whatever the retries, restarts and resumes; a step
 * already answered is answered from the journal without a request; a definitive answer is never
 * retried; {@link Outcome.Unknown} is never turned into failure or success by guessing.
 *
 * <p>What it does not guarantee: that an action the server no longer remembers (past the tool's
 * retention) is not executed again. {@link #resume} therefore does not re-send an action that the
 * server does not know and that was recorded longer ago than {@link Builder#resendWindow}.
 *
 * <p>Thread-safe. The retry budget is shared by all calls of one client.
 */
public final class ToolLedgerClient {
  private static final Logger LOG = LoggerFactory.getLogger(ToolLedgerClient.class);

  /** Default per-attempt timeout: 10 seconds (the server waits up to 5 s for a concurrent twin). */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

  /** Default connect timeout of the built-in HTTP client: 5 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Default resend window: 24 hours, well inside the default tool retention of 7 days on the
   * server.
   */
  public static final Duration DEFAULT_RESEND_WINDOW = Duration.ofHours(24);

  private final ActionJournal journal;
  private final ActionTransport transport;
  private final Retrier retrier;
  private final Duration attemptTimeout;
  private final Duration resendWindow;
  private final Clock clock;

  private ToolLedgerClient(Builder b, ActionTransport transport) {
    this.journal = b.journal;
    this.transport = transport;
    this.retrier = Retrier.of(b.retryPolicy);
    this.attemptTimeout = b.attemptTimeout;
    this.resendWindow = b.resendWindow;
    this.clock = b.clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  public ActionJournal journal() {
    return journal;
  }

  public RetryPolicy retryPolicy() {
    return retrier.policy();
  }

  /** Tokens now in the shared retry budget, for metrics. */
  public double retryBudgetTokens() {
    return retrier.budgetTokens();
  }

  /** {@link #call(Action)} for a step given by its parts. */
  public Outcome execute(String workflowId, String stepId, String tool, JsonNode parameters) {
    return call(Action.of(workflowId, stepId, tool, parameters));
  }

  /**
   * Journals the action (or finds it journaled), then drives it to an outcome:
   *
   * <ul>
   *   <li>a new action is sent with its new key, retried per policy;
   *   <li>a step already answered returns the journaled outcome, sending nothing;
   *   <li>a step journaled but unanswered (this process or an earlier one sent it, or meant to) is
   *       driven like {@link #resume}: looked up first, sent again with the same key if needed.
   * </ul>
   *
   * @throws dev.toolledger.client.journal.ActionConflictException when the step is journaled with
   *     another tool or other parameters; nothing is sent
   * @throws JournalException when the action cannot be journaled; nothing is sent
   */
  public Outcome call(Action action) {
    Recorded recorded = journal.record(action);
    JournalEntry entry = recorded.entry();
    if (entry.status().isFinal()) {
      return journaled(entry);
    }
    return recorded.isNew() ? send(entry) : recover(entry);
  }

  /**
   * Looks a key up on the server, retrying transient failures per policy. Never throws for an
   * unreachable server: that is {@link LookupResult.Unavailable}.
   *
   * @param key the operation key, the one the journal minted for an action ({@link
   *     JournalEntry#key()}) or one another caller sent; {@link OperationKey#of(String)} turns a
   *     string into a key and rejects one the server would refuse (1 to 255 visible ASCII
   *     characters). {@code OperationKey} is the type client and server share ({@code
   *     toolledger-protocol}), not a server internal.
   */
  public LookupResult lookup(OperationKey key) {
    Objects.requireNonNull(key, "key");
    try {
      RetryResult<LookupResult> result =
          retrier.run((attempt, remaining) -> transport.lookup(key, perAttempt(remaining)));
      if (result instanceof RetryResult.Answered<LookupResult> answered) {
        return answered.value();
      }
      return new LookupResult.Unavailable(
          key, ((RetryResult.GaveUp<LookupResult>) result).describe());
    } catch (RuntimeException e) {
      LOG.warn("lookup of key #{} failed unexpectedly", LogKeys.of(key), e);
      return new LookupResult.Unavailable(
          key, "the lookup failed unexpectedly (" + e.getClass().getSimpleName() + ")");
    }
  }

  /**
   * Drives every unfinished action of a workflow ({@code PENDING} or {@code UNKNOWN} in the
   * journal, for example after a restart) to an outcome, in the order they were recorded, each with
   * its original key:
   *
   * <ol>
   *   <li>look the key up: a completed operation completes the action without a request; an
   *       operation the server holds as unknown or not executed ends so;
   *   <li>not found (the server never saw it, or rolled it back) or in progress: send again with
   *       the same key, retrying per policy; unless the action was recorded longer ago than the
   *       resend window, when it stays {@link Outcome.Unknown} for a human, because the server's
   *       record may have expired;
   *   <li>lookup impossible (server unreachable): stays {@link Outcome.Unknown}; resume again
   *       later.
   * </ol>
   *
   * @return each unfinished action with its outcome now; an {@link Outcome.Unknown} stays
   *     unfinished in the journal
   */
  public List<ResumedAction> resume(String workflowId) {
    Objects.requireNonNull(workflowId, "workflowId");
    List<ResumedAction> resumed = new ArrayList<>();
    for (JournalEntry entry : journal.unfinished(workflowId)) {
      resumed.add(new ResumedAction(entry.action(), entry.key(), recover(entry)));
    }
    return resumed;
  }

  /** Lookup first, then send with the same key if the server does not hold an outcome. */
  private Outcome recover(JournalEntry entry) {
    OperationKey key = entry.key();
    LookupResult found = lookup(key);
    if (found instanceof LookupResult.Found record) {
      if (record.tool().isPresent() && !record.tool().get().equals(entry.action().tool())) {
        return settle(
            entry,
            new Outcome.Unknown(
                key,
                "the server holds this key for another tool; the journal and the server disagree,"
                    + " hand it to a human"));
      }
      return switch (record.state()) {
        case COMPLETED -> {
          StoredResponse response = record.response().orElseThrow();
          yield settle(
              entry,
              new Outcome.Completed(
                  key, response.status(), HttpAnswers.parseBody(response.body()), true));
        }
        case NOT_EXECUTED ->
            settle(
                entry,
                new Outcome.Rejected(
                    key,
                    ProblemDetails.of(
                        ProblemType.NOT_EXECUTED,
                        "the server resolved this key as not executed; it will not execute")));
        case UNKNOWN ->
            settle(
                entry,
                new Outcome.Unknown(
                    key,
                    "the server holds this operation's outcome as unknown; resolve it with an"
                        + " operator"));
        case IN_PROGRESS -> send(entry); // joins the execution under way and gets its outcome
      };
    }
    if (found instanceof LookupResult.NotFound) {
      Duration age = Duration.between(entry.recordedAt(), clock.instant());
      if (age.compareTo(resendWindow) > 0) {
        return settle(
            entry,
            new Outcome.Unknown(
                key,
                "the server does not know this key and the action was recorded "
                    + age.toHours()
                    + " h ago, beyond the resend window; its record may have expired, so it is not"
                    + " sent again"));
      }
      return send(entry);
    }
    return settle(
        entry,
        new Outcome.Unknown(
            key, "could not look the key up: " + ((LookupResult.Unavailable) found).reason()));
  }

  private Outcome send(JournalEntry entry) {
    OperationKey key = entry.key();
    Action action = entry.action();
    Outcome outcome;
    try {
      RetryResult<Outcome> result =
          retrier.run((attempt, remaining) -> transport.send(key, action, perAttempt(remaining)));
      if (result instanceof RetryResult.Answered<Outcome> answered) {
        outcome = answered.value();
      } else {
        outcome =
            new Outcome.Unknown(
                key, "no definitive answer: " + ((RetryResult.GaveUp<Outcome>) result).describe());
      }
    } catch (RuntimeException e) {
      LOG.warn("sending key #{} to {} failed unexpectedly", LogKeys.of(key), action.tool(), e);
      outcome =
          new Outcome.Unknown(
              key, "the request failed unexpectedly (" + e.getClass().getSimpleName() + ")");
    }
    if (outcome instanceof Outcome.Unknown unknown) {
      LOG.info(
          "outcome of key #{} ({}) is unknown: {}",
          LogKeys.of(key),
          action.tool(),
          unknown.reason());
    }
    return settle(entry, outcome);
  }

  /** Keeps the outcome in the journal. The answer stands even if the journal cannot take it. */
  private Outcome settle(JournalEntry entry, Outcome outcome) {
    try {
      if (outcome instanceof Outcome.Completed completed) {
        journal.markCompleted(
            entry.key(), new StoredResponse(completed.status(), Json.write(completed.body())));
      } else if (outcome instanceof Outcome.Rejected rejected) {
        journal.markRejected(entry.key(), rejected.problem().document());
      } else {
        journal.markUnknown(entry.key());
      }
    } catch (JournalException | IllegalArgumentException e) {
      // The server holds the outcome; a later resume looks it up. Say so, without the key itself.
      LOG.warn(
          "could not journal the outcome of key #{} ({}); resume will look it up: {}",
          LogKeys.of(entry.key()),
          outcome.getClass().getSimpleName().toLowerCase(Locale.ROOT),
          e.getMessage());
    }
    return outcome;
  }

  private static Outcome journaled(JournalEntry entry) {
    return switch (entry.status()) {
      case COMPLETED -> {
        StoredResponse response = entry.response().orElseThrow();
        yield new Outcome.Completed(
            entry.key(), response.status(), HttpAnswers.parseBody(response.body()), true);
      }
      case REJECTED ->
          new Outcome.Rejected(
              entry.key(), ProblemDetails.fromDocument(entry.problem().orElseThrow()));
      default -> throw new IllegalStateException("not final: " + entry.status());
    };
  }

  private Duration perAttempt(Duration remaining) {
    return remaining.compareTo(attemptTimeout) < 0 ? remaining : attemptTimeout;
  }

  /**
   * Builds a client. Required: a journal, and either a base URI with a token (HTTP) or a {@link
   * ActionTransport}. {@link #build()} rejects missing, bad or conflicting options and names them.
   */
  public static final class Builder {
    private URI baseUri;
    private String token;
    private ActionJournal journal;
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
    private Duration connectTimeout;
    private HttpClient httpClient;
    private ActionTransport transport;
    private Duration resendWindow = DEFAULT_RESEND_WINDOW;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** The server, for example {@code http://127.0.0.1:8080}; a path prefix is kept. */
    public Builder baseUri(URI baseUri) {
      this.baseUri = baseUri;
      return this;
    }

    /** The bearer token ({@code tl_...}). Never logged. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** The journal that mints and keeps the keys. Required; not closed by the client. */
    public Builder journal(ActionJournal journal) {
      this.journal = journal;
      return this;
    }

    /** Default {@link RetryPolicy#defaults()}. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * Longest time one attempt may take, capped by what is left of the policy's deadline. Default
     * 10 seconds.
     */
    public Builder attemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = attemptTimeout;
      return this;
    }

    /** Connect timeout of the built-in HTTP client. Default 5 seconds. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * An HTTP client to use instead of the built-in one (HTTP/1.1, no redirects, the connect
     * timeout). It must not retry POST requests by itself.
     */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = httpClient;
      return this;
    }

    /** A non-HTTP transport (for example MCP). Replaces base URI, token and HTTP client. */
    public Builder transport(ActionTransport transport) {
      this.transport = transport;
      return this;
    }

    /**
     * How old an unfinished action may be for {@link #resume} to send it again when the server does
     * not know its key. Keep it below the tool's retention on the server. Default 24 hours.
     */
    public Builder resendWindow(Duration resendWindow) {
      this.resendWindow = resendWindow;
      return this;
    }

    /** Wall clock for {@code Retry-After} dates and the resend window. Default system UTC. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public ToolLedgerClient build() {
      if (journal == null) {
        throw new IllegalArgumentException(
            "journal is required (for example ActionJournal.sqlite(path))");
      }
      Objects.requireNonNull(retryPolicy, "retryPolicy must not be null");
      Objects.requireNonNull(clock, "clock must not be null");
      requirePositive("attemptTimeout", attemptTimeout);
      requirePositive("resendWindow", resendWindow);
      ActionTransport chosen;
      if (transport != null) {
        if (baseUri != null || token != null || httpClient != null || connectTimeout != null) {
          throw new IllegalArgumentException(
              "transport replaces baseUri, token, httpClient and connectTimeout; set one or the"
                  + " other");
        }
        chosen = transport;
      } else {
        if (baseUri == null) {
          throw new IllegalArgumentException("baseUri is required (or a transport)");
        }
        String scheme = baseUri.getScheme();
        if (!baseUri.isAbsolute()
            || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
            || baseUri.getHost() == null) {
          throw new IllegalArgumentException("baseUri must be an absolute http or https URI");
        }
        if (baseUri.getQuery() != null || baseUri.getFragment() != null) {
          throw new IllegalArgumentException("baseUri must not have a query or a fragment");
        }
        if (token == null || token.isBlank()) {
          throw new IllegalArgumentException("token is required");
        }
        if (token.chars().anyMatch(c -> c < 0x21 || c > 0x7E)) {
          throw new IllegalArgumentException("token must be visible ASCII without spaces");
        }
        if (httpClient != null && connectTimeout != null) {
          throw new IllegalArgumentException(
              "connectTimeout configures the built-in HTTP client; set it on the httpClient you"
                  + " pass instead");
        }
        Duration connect = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        requirePositive("connectTimeout", connect);
        HttpClient http =
            httpClient != null
                ? httpClient
                : HttpClient.newBuilder()
                    // The server speaks HTTP/1.1; asking for HTTP/2 on cleartext would add an
                    // upgrade attempt to every new connection.
                    .version(HttpClient.Version.HTTP_1_1)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(connect)
                    .build();
        chosen = new HttpTransport(http, baseUri, token, clock);
      }
      return new ToolLedgerClient(this, chosen);
    }

    private static void requirePositive(String option, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive");
      }
    }
  }
}
