package dev.toolledger.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.Expired;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.InvalidParameters;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.engine.ExecutionOutcome.NotExecuted;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.RateLimited;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.ExecutionOutcome.ResponseTooLarge;
import dev.toolledger.core.engine.ExecutionOutcome.UnknownTool;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.json.Json;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.OperationState;
import dev.toolledger.core.operation.StoredResponse;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.problem.ProblemType;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.ExpiredClaim;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.store.UncertainCommitException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tools under operation keys so that a retry of the same intent replays the recorded outcome
 * instead of executing again.
 *
 * <p>What it guarantees, per (tenant, key): at most one committed effect; the outcome committed in
 * the same transaction as the effect; every later request with the same intent gets that outcome; a
 * request with another intent gets {@link KeyReused}; a request that arrives while the key is being
 * executed waits (bounded) and then gets the outcome or {@link InProgress}, never a placeholder.
 * Parameters that fail validation are refused before anything is recorded.
 *
 * <p>What it does not guarantee: anything about effects outside the ledger's database, or that a
 * caller who gives up and sends the same intent under a new key will not get a second effect. The
 * key is the identity of the action; keep it.
 *
 * <p>The path of a retry is one indexed read and no write; the path of a new key is that read plus
 * one write transaction (whose claim also refuses a key guarded by a tombstone, in the same
 * statement on PostgreSQL). The rate limit of new operations is checked in memory, or with one
 * statement on the database when its buckets are shared ({@link Builder#sharedRateBuckets}).
 *
 * <p>Records are kept for their tool's retention, then swept ({@link #sweep}); a swept key is
 * guarded by a tombstone for {@link EngineConfig#tombstoneWindow()}, during which a late request
 * with it is answered {@link Expired} and executes nothing. After that the key is new again.
 */
public final class LedgerEngine {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerEngine.class);

  private final LedgerStore store;
  private final ToolRegistry tools;
  private final EngineConfig config;
  private final OutcomeListener listener;
  private final KeyHasher keys;
  private final Writes writes;
  private final ExternalPath external;
  private final Optional<NewOperationLimiter> limiter;
  private final Optional<SharedRateBuckets> sharedBuckets;
  private final SweepPacing sweepPacing;

  /**
   * Whether a transactional tool's request goes straight to its transaction, without reading the
   * key first: when the store's claim tells a recorded key from a new one at no extra cost ({@link
   * LedgerStore#decidesClaimInTransaction}) and the new-operation rate limit, if any, is this
   * node's own (taken inside the transaction once the claim found the key free); a limit shared in
   * the database is a statement of its own and keeps the read before the transaction.
   */
  private final boolean claimDecidesReplay;

  /** Keys to read before the transaction even so; see {@link RecentKeys}. */
  private final RecentKeys recent = new RecentKeys();

  private LedgerEngine(Builder b) {
    this.store = b.store;
    this.tools = b.tools;
    this.config = b.config;
    this.listener = b.listener;
    this.keys = b.keys;
    this.writes = new Writes(b.store, b.config);
    this.sweepPacing =
        b.config.sweepPacing().orElseGet(() -> SweepPacing.forDialect(b.store.dialect()));
    this.external = new ExternalPath(b.store, b.config, writes, b.keys, b.downstreamKeys);
    this.sharedBuckets = b.config.newOperationLimit().flatMap(limit -> b.sharedBuckets);
    this.limiter =
        b.sharedBuckets.isPresent()
            ? Optional.empty()
            : b.config
                .newOperationLimit()
                .map(limit -> new NewOperationLimiter(limit, b.config.clock()));
    // A limit kept in memory is taken inside the transaction, once the claim has found the key
    // free (no round trip); a limit shared in the database is a statement of its own, taken only
    // once the key is known to be new, so it keeps the read before the transaction.
    this.claimDecidesReplay = b.store.decidesClaimInTransaction() && sharedBuckets.isEmpty();
  }

  public static Builder builder(LedgerStore store, ToolRegistry tools) {
    return new Builder(store, tools);
  }

  public ToolRegistry tools() {
    return tools;
  }

  public EngineConfig config() {
    return config;
  }

  /** How long the records of {@code tool} are kept: its configured override, or its own. */
  public Duration retention(ToolDescriptor tool) {
    return config.retentionOf(tool);
  }

  /**
   * The live tombstone of a key in a tenant, or empty: a key of another tenant, a key never seen, a
   * key whose record still exists and a key whose tombstone's window is over all answer empty.
   */
  public Optional<Tombstone> tombstone(TenantId tenant, OperationKey key) {
    Instant now = config.clock().instant();
    return store.findTombstone(tenant, key).filter(t -> t.isLiveAt(now));
  }

  /**
   * Deletes operations whose retention ended, a batch per transaction, leaving a tombstone for
   * each; then deletes tombstones whose window ended. {@code IN_PROGRESS} and {@code UNKNOWN}
   * operations are never swept. Safe to run on several nodes at once.
   *
   * <p>After each full batch the pass pauses as {@link #sweepPacing()} says: long enough that the
   * sweeper holds at most its write share of the database's write time (a tenth on SQLite, a fifth
   * on PostgreSQL by default), so writers keep most of their speed while a large backlog is
   * deleted, but never so long that the pass deletes slower than this node has been creating
   * records since the pass began, so the sweeper keeps up with expiry. An interrupt ends the pass
   * after the batch in progress, with {@code complete() == false} and the thread's interrupt flag
   * set.
   *
   * @param batchSize operations (or tombstones) per transaction
   */
  public SweepReport sweep(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1");
    }
    Instant now = config.clock().instant();
    Pass pass = new Pass(System.nanoTime(), writes.expiring.sum());
    Batches swept =
        inBatches(tx -> tx.sweepExpired(now, config.tombstoneWindow(), batchSize), batchSize, pass);
    Batches pruned =
        swept.complete()
            ? inBatches(tx -> tx.pruneTombstones(now, batchSize), batchSize, pass)
            : new Batches(0, 0, 0, 0, false);
    return new SweepReport(
        swept.rows(),
        pruned.rows(),
        swept.transactions() + pruned.transactions(),
        Duration.ofNanos(Math.max(swept.longestNanos(), pruned.longestNanos())),
        Duration.ofNanos(swept.totalNanos() + pruned.totalNanos()),
        pruned.complete());
  }

  /**
   * How this engine's sweep passes space their batches: the configured {@link
   * EngineConfig#sweepPacing()}, or the store's default ({@link SweepPacing#forDialect}).
   */
  public SweepPacing sweepPacing() {
    return sweepPacing;
  }

  /** What {@link #inBatches} did. */
  private record Batches(
      long rows, int transactions, long longestNanos, long totalNanos, boolean complete) {}

  /** When a sweep pass began, and how many records this node had created by then. */
  private record Pass(long startNanos, long createdBefore) {}

  /**
   * Runs {@code batch} (which handles at most {@code batchSize} rows) in one write transaction
   * after another until one comes back short, pausing after each full one; stops early when
   * interrupted.
   */
  private Batches inBatches(TransactionWork<Integer> batch, int batchSize, Pass pass) {
    long rows = 0;
    int transactions = 0;
    long longest = 0;
    long total = 0;
    int n;
    do {
      long start = System.nanoTime();
      n = writes.run(batch);
      long end = System.nanoTime();
      long took = end - start;
      longest = Math.max(longest, took);
      total += took;
      rows += n;
      transactions++;
      if (n >= batchSize) {
        long pause =
            sweepPacing.pauseNanos(
                took, n, writes.expiring.sum() - pass.createdBefore(), end - pass.startNanos());
        if (!pauseForWriters(pause)) {
          return new Batches(rows, transactions, longest, total, false);
        }
      }
    } while (n >= batchSize);
    return new Batches(rows, transactions, longest, total, true);
  }

  /** Sleeps between sweep batches; false (flag kept) when the thread is interrupted. */
  private static boolean pauseForWriters(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The listener this engine reports outcomes to, so that a front end can report the calls it
   * refuses before they reach the engine (a missing key, a malformed body) to the same place.
   */
  public OutcomeListener listener() {
    return listener;
  }

  /**
   * How this engine names keys in its logs, so that a front end's own log lines and operator output
   * name them the same way.
   */
  public KeyHasher keyHasher() {
    return keys;
  }

  /**
   * The recorded state of a key in a tenant, or empty. A key of another tenant is empty too: a key
   * grants nothing by itself.
   */
  public Optional<OperationRecord> lookup(TenantId tenant, OperationKey key) {
    return store.find(tenant, key);
  }

  /**
   * How an operation reached its state, oldest step first; empty for a key never claimed in this
   * tenant. A claim that was released (its tool reported that nothing happened) has no record any
   * more, but its steps stay, so that the history explains why the key was free again. A
   * transactional operation's one step is taken inside the transaction that made its effect; it is
   * derived from the record rather than written on every call.
   */
  public List<HistoryEntry> history(TenantId tenant, OperationKey key) {
    List<HistoryEntry> stored = store.history(tenant, key);
    Optional<OperationRecord> record = store.find(tenant, key);
    if (record.isEmpty() || record.get().state() != OperationState.COMPLETED) {
      return stored;
    }
    if (!stored.isEmpty() && stored.get(stored.size() - 1).to() == OperationState.COMPLETED) {
      return stored;
    }
    // Completed without a recorded step: a transactional execution (perhaps of a key whose earlier
    // external claim was released, whose steps come first).
    OperationRecord r = record.get();
    List<HistoryEntry> all = new ArrayList<>(stored);
    all.add(
        new HistoryEntry(
            r.completedAt().orElse(r.createdAt()),
            Optional.empty(),
            OperationState.COMPLETED,
            "executed; the effect and this record committed in one transaction",
            "engine",
            1));
    return List.copyOf(all);
  }

  /**
   * Settles a key that a caller gave up on, or that an operator investigated.
   *
   * <p>An {@link Resolution.Inquiry} fences a key never seen as {@code NOT_EXECUTED} (so a late
   * request with it is refused instead of executing after the caller gave up) and otherwise just
   * reports the current state. An explicit resolution applies only to an {@code UNKNOWN} operation
   * and is recorded in its history with {@code actor}.
   *
   * @param actor who asks, for the history ({@code token:ID})
   */
  public ResolveOutcome resolve(
      TenantId tenant, OperationKey key, Resolution resolution, String actor) {
    Instant now = config.clock().instant();
    if (resolution instanceof Resolution.Inquiry) {
      return inquire(tenant, key, now, actor);
    }
    Optional<OperationRecord> existing = store.find(tenant, key);
    if (existing.isEmpty()) {
      return tombstone(tenant, key)
          .<ResolveOutcome>map(ResolveOutcome.Expired::new)
          .orElseGet(ResolveOutcome.NothingToResolve::new);
    }
    if (existing.get().state() != OperationState.UNKNOWN) {
      return new ResolveOutcome.NotResolvable(existing.get());
    }
    OperationState to;
    Optional<StoredResponse> response;
    String reason;
    if (resolution instanceof Resolution.MarkCompleted completed) {
      to = OperationState.COMPLETED;
      response = Optional.of(completed.response());
      reason = completed.reason();
    } else {
      to = OperationState.NOT_EXECUTED;
      response = Optional.empty();
      reason = ((Resolution.MarkNotExecuted) resolution).reason();
    }
    Duration retention =
        existing
            .get()
            .tool()
            .flatMap(tools::find)
            .map(t -> config.retentionOf(t.descriptor()))
            .orElse(ToolDescriptor.DEFAULT_RETENTION);
    boolean resolved =
        writes.run(
            tx -> {
              boolean ok = tx.resolveUnknown(tenant, key, to, response, now, now.plus(retention));
              if (ok) {
                tx.appendHistory(
                    tenant,
                    key,
                    new HistoryEntry(
                        now,
                        Optional.of(OperationState.UNKNOWN),
                        to,
                        "resolved by an operator: " + reason,
                        actor,
                        0));
              }
              return ok;
            });
    OperationRecord current = store.find(tenant, key).orElseThrow();
    return resolved
        ? new ResolveOutcome.Resolved(current)
        : new ResolveOutcome.NotResolvable(current);
  }

  private ResolveOutcome inquire(TenantId tenant, OperationKey key, Instant now, String actor) {
    while (true) {
      boolean fenced =
          writes.run(
              tx -> {
                boolean ok = tx.fenceUnseen(tenant, key, now, now.plus(fenceRetention()));
                if (ok) {
                  tx.appendHistory(
                      tenant,
                      key,
                      new HistoryEntry(
                          now,
                          Optional.empty(),
                          OperationState.NOT_EXECUTED,
                          "fenced: the caller gave up on a key never seen; a late request with it"
                              + " is refused",
                          actor,
                          0));
                }
                return ok;
              });
      Optional<OperationRecord> current = store.find(tenant, key);
      if (current.isPresent()) {
        return fenced
            ? new ResolveOutcome.Fenced(current.get())
            : new ResolveOutcome.Current(current.get());
      }
      Optional<Tombstone> tombstone = tombstone(tenant, key);
      if (tombstone.isPresent()) {
        return new ResolveOutcome.Expired(tombstone.get());
      }
      // The key was held by a claim that has been released since (its tool reported that
      // nothing happened): it is free again, so fence it now.
    }
  }

  /**
   * A fence guards a key whose tool is not known yet: keep it as long as the longest retention of
   * any tool, so that it outlives the late request of whichever tool it was meant for.
   */
  private Duration fenceRetention() {
    Duration longest = ToolDescriptor.DEFAULT_RETENTION;
    for (RegisteredTool tool : tools.all()) {
      Duration retention = config.retentionOf(tool.descriptor());
      if (retention.compareTo(longest) > 0) {
        longest = retention;
      }
    }
    return longest;
  }

  /**
   * Takes over leased claims whose lease expired by the database's clock and settles each: by the
   * tool's outcome lookup, by performing again when the downstream is idempotent by its key, or as
   * {@code UNKNOWN}. An expired claim is never deleted and its effect never silently re-run.
   * Several nodes may recover at once; a claim goes to whichever takes it over first.
   */
  public RecoveryReport recoverExpiredClaims(int limit) {
    RecoveryReport report = new RecoveryReport();
    for (ExpiredClaim claim : store.expiredClaims(limit)) {
      report.examined++;
      Optional<ExternalTool> tool =
          tools
              .find(claim.intent().tool())
              .map(RegisteredTool::tool)
              .filter(ExternalTool.class::isInstance)
              .map(ExternalTool.class::cast);
      Duration lease = tool.map(ExternalTool::lease).orElse(ExternalTool.DEFAULT_LEASE);
      OptionalLong taken;
      try {
        taken =
            writes.run(
                tx -> {
                  OptionalLong fence =
                      tx.takeOver(
                          claim.tenant(), claim.key(), claim.fence(), config.nodeId(), lease);
                  if (fence.isPresent()) {
                    tx.appendHistory(
                        claim.tenant(),
                        claim.key(),
                        new HistoryEntry(
                            config.clock().instant(),
                            Optional.of(OperationState.IN_PROGRESS),
                            OperationState.IN_PROGRESS,
                            "the lease of " + claim.owner() + " expired; taken over",
                            external.actor(),
                            fence.getAsLong()));
                  }
                  return fence;
                });
      } catch (TransientStoreException e) {
        report.lost++;
        continue;
      }
      if (taken.isEmpty()) {
        report.lost++;
        continue;
      }
      String why = "the lease of " + claim.owner() + " expired";
      ExternalPath.Settled settled =
          tool.isPresent()
              ? external.settle(
                  tool.get(),
                  claim.tenant(),
                  claim.key(),
                  taken.getAsLong(),
                  Json.parse(claim.parameters()),
                  claim.downstreamKey() != null
                      ? claim.downstreamKey()
                      : DownstreamKeys.legacy(claim.tenant(), claim.key()),
                  why)
              : external.markWithoutTool(
                  claim.tenant(),
                  claim.key(),
                  taken.getAsLong(),
                  why
                      + "; tool "
                      + claim.intent().tool()
                      + " is not an external tool on this node");
      report.count(settled);
    }
    return report;
  }

  /**
   * Decides and, when the key is new, executes an invocation.
   *
   * @throws ToolExecutionException when the tool threw; nothing was recorded
   * @throws StoreUnavailableException when the ledger's storage failed; nothing was recorded
   * @throws dev.toolledger.core.store.StoreException when the database failed for good
   */
  public ExecutionOutcome execute(Invocation invocation) {
    long started = System.nanoTime();
    ExecutionOutcome outcome;
    try {
      outcome = decide(invocation);
    } catch (RuntimeException e) {
      report(invocation, e, "failed", started);
      throw e;
    }
    report(invocation, outcome, outcome.kind(), started);
    return outcome;
  }

  private ExecutionOutcome decide(Invocation invocation) {
    Optional<RegisteredTool> found = tools.find(invocation.tool());
    if (found.isEmpty()) {
      return new UnknownTool(invocation.tool());
    }
    RegisteredTool tool = found.get();
    ToolDescriptor descriptor = tool.descriptor();

    Validation validation = tool.schema().validate(invocation.parameters());
    if (validation instanceof Validation.Invalid invalid) {
      return new InvalidParameters(invalid.violations());
    }
    JsonNode parameters = ((Validation.Valid) validation).parameters();
    OperationIntent intent;
    try {
      intent =
          new OperationIntent(
              descriptor.name(),
              descriptor.version(),
              Fingerprinter.fingerprint(descriptor.name(), descriptor.version(), parameters));
    } catch (IllegalArgumentException e) {
      return new InvalidParameters(List.of(new Violation("", e.getMessage())));
    }

    Duration wait =
        invocation
            .maxWait()
            .filter(w -> w.compareTo(config.maxWait()) < 0)
            .orElse(config.maxWait());
    long deadline = System.nanoTime() + wait.toNanos();

    if (tool.tool() instanceof TransactionalTool transactional
        && claimDecidesReplay
        && !recent.contains(invocation.tenant(), invocation.key())) {
      // The transaction's claim reads the key anyway, under the key's lock: a recorded key is
      // answered from that read, and a new key is spared a round trip. A key this node recorded
      // or replayed lately is read first instead (below): a retry is likely, and a read is
      // cheaper than a transaction.
      return remember(
          invocation,
          executeInTransaction(transactional, invocation, intent, parameters, deadline, limiter));
    }
    Optional<OperationRecord> existing = store.find(invocation.tenant(), invocation.key());
    if (existing.isPresent()) {
      return remember(invocation, settle(existing.get(), intent, deadline));
    }
    Optional<Duration> refill =
        sharedBuckets.isPresent()
            ? sharedBuckets
                .get()
                .take(
                    invocation.tenant(),
                    config.newOperationLimit().orElseThrow(),
                    config.clock().instant())
            : limiter.flatMap(l -> l.acquire(invocation.tenant()));
    if (refill.isPresent()) {
      return new RateLimited(atLeastOneSecond(refill.get()));
    }
    if (tool.tool() instanceof TransactionalTool transactional) {
      return remember(
          invocation,
          executeInTransaction(
              transactional, invocation, intent, parameters, deadline, Optional.empty()));
    }
    ExternalPath.Result result =
        external.execute((ExternalTool) tool.tool(), invocation, intent, parameters, deadline);
    if (result instanceof ExternalPath.Result.Settle settle) {
      return settle(settle.record(), intent, deadline);
    }
    return ((ExternalPath.Result.Answer) result).outcome();
  }

  /** Notes a key that was just recorded or replayed, when it may spare its retry a transaction. */
  private ExecutionOutcome remember(Invocation invocation, ExecutionOutcome outcome) {
    if (claimDecidesReplay && (outcome instanceof Executed || outcome instanceof Replayed)) {
      recent.add(invocation.tenant(), invocation.key());
    }
    return outcome;
  }

  private static Duration atLeastOneSecond(Duration wait) {
    long seconds = wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
    return Duration.ofSeconds(Math.max(1, seconds));
  }

  /** Answers a request whose key is already recorded. */
  private ExecutionOutcome settle(OperationRecord record, OperationIntent intent, long deadline) {
    OperationRecord current = record;
    long pause = Math.max(1, config.retryBase().toMillis());
    while (true) {
      if (current.intent().isEmpty()) {
        return new NotExecuted(current);
      }
      if (!current.intent().get().equals(intent)) {
        return new KeyReused(current.intent().get().tool());
      }
      switch (current.state()) {
        case COMPLETED:
          return new Replayed(current);
        case UNKNOWN:
          return new OutcomeUnknown(current);
        case NOT_EXECUTED:
          return new NotExecuted(current);
        case IN_PROGRESS:
          break;
        default:
          throw new IllegalStateException("unhandled state " + current.state());
      }
      // In progress: wait for the executor to finish, polling with a growing pause, but never
      // past the caller's deadline and never by pretending the operation is done.
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return new InProgress(config.retryAfter());
      }
      sleep(Math.min(pause, Duration.ofNanos(remaining).toMillis() + 1));
      pause = Math.min(pause * 2, 250);
      Optional<OperationRecord> again = store.find(current.tenant(), current.key());
      if (again.isEmpty()) {
        // The claim was rolled back (its executor failed); the key is free again, but this caller
        // did not claim it. Report in progress so that it retries rather than guessing.
        return new InProgress(config.retryAfter());
      }
      current = again.get();
    }
  }

  private ExecutionOutcome executeInTransaction(
      TransactionalTool tool,
      Invocation invocation,
      OperationIntent intent,
      JsonNode parameters,
      long deadline,
      Optional<NewOperationLimiter> limitOnceClaimed) {
    String toolName = tool.descriptor().name();
    Duration retention = config.retentionOf(tool.descriptor());
    TxResult result;
    try {
      result =
          writes.run(
              tx -> {
                Instant now = config.clock().instant();
                Duration wait = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                ClaimResult claim =
                    tx.claim(
                        new NewOperation(invocation.tenant(), invocation.key(), intent, now), wait);
                if (claim instanceof ClaimResult.Existing existing) {
                  return new TxResult.Taken(existing.record());
                }
                if (claim instanceof ClaimResult.Contended) {
                  return new TxResult.Contended();
                }
                if (claim instanceof ClaimResult.Expired expired) {
                  return new TxResult.Gone(expired.tombstone());
                }
                if (limitOnceClaimed.isPresent()) {
                  // The key is new (the claim read it free under its lock) and nothing is
                  // written yet: a refused permit ends the transaction empty.
                  Optional<Duration> refill = limitOnceClaimed.get().acquire(invocation.tenant());
                  if (refill.isPresent()) {
                    return new TxResult.Limited(refill.get());
                  }
                }
                ToolResponse response;
                try {
                  response =
                      tool.execute(
                          new EngineTransactionContext(
                              invocation.tenant(), invocation.key(), tx, now),
                          parameters);
                } catch (Exception e) {
                  throw new ToolExecutionException(toolName, e);
                }
                Objects.requireNonNull(response, () -> "tool " + toolName + " returned null");
                String body = Json.write(response.body());
                long bytes = utf8Length(body);
                if (bytes > config.maxResponseBytes()) {
                  // Thrown, not returned: the tool's effect is in this transaction and must be
                  // rolled back with it.
                  throw new TooLarge(bytes);
                }
                StoredResponse stored = new StoredResponse(response.status(), body);
                Instant completedAt = config.clock().instant();
                Instant expiresAt = completedAt.plus(retention);
                tx.complete(invocation.tenant(), invocation.key(), stored, completedAt, expiresAt);
                return new TxResult.Done(
                    new OperationRecord(
                        invocation.tenant(),
                        invocation.key(),
                        Optional.of(intent),
                        OperationState.COMPLETED,
                        Optional.of(stored),
                        now,
                        Optional.of(completedAt),
                        Optional.of(expiresAt)));
              });
    } catch (TransientStoreException e) {
      if (e instanceof UncertainCommitException) {
        // The last attempt's commit may have happened: "busy" would say it did not. The caller's
        // retry with the key reads the record and learns which.
        return new InProgress(config.retryAfter());
      }
      LOG.atWarn()
          .addKeyValue("tenant", invocation.tenant().value())
          .addKeyValue("tool", toolName)
          .addKeyValue("key", keys.hash(invocation.tenant(), invocation.key()))
          .log("database stayed busy; answering busy: {}", e.getMessage());
      return new Busy(config.retryAfter());
    } catch (TooLarge e) {
      LOG.atWarn()
          .addKeyValue("tenant", invocation.tenant())
          .addKeyValue("tool", toolName)
          .addKeyValue("key", keys.hash(invocation.tenant(), invocation.key()))
          .addKeyValue("bytes", e.bytes)
          .log("the tool's response is over the stored-response limit; rolled back");
      return new ResponseTooLarge(toolName, e.bytes, config.maxResponseBytes());
    }
    if (result instanceof TxResult.Done done) {
      writes.expiring.increment();
      return new Executed(done.record());
    }
    if (result instanceof TxResult.Gone gone) {
      return new Expired(gone.tombstone());
    }
    if (result instanceof TxResult.Limited limited) {
      return new RateLimited(atLeastOneSecond(limited.refill()));
    }
    if (result instanceof TxResult.Taken taken) {
      return settle(taken.record(), intent, deadline);
    }
    return new InProgress(config.retryAfter());
  }

  private static void sleep(long millis) {
    Writes.sleep(millis);
  }

  private void report(
      Invocation invocation, ExecutionOutcome outcome, String kind, long startedNanos) {
    report(invocation, outcome, null, kind, startedNanos);
  }

  private void report(
      Invocation invocation, RuntimeException failure, String kind, long startedNanos) {
    report(invocation, null, failure, kind, startedNanos);
  }

  private void report(
      Invocation invocation,
      ExecutionOutcome outcome,
      RuntimeException failure,
      String kind,
      long startedNanos) {
    Duration duration = Duration.ofNanos(System.nanoTime() - startedNanos);
    if (LOG.isInfoEnabled()) {
      var line =
          LOG.atInfo()
              .addKeyValue("outcome", kind)
              .addKeyValue("tenant", invocation.tenant().value())
              .addKeyValue("tool", invocation.tool())
              .addKeyValue("key", keys.hash(invocation.tenant(), invocation.key()))
              .addKeyValue("ms", duration.toMillis());
      String error = outcome != null ? errorCategory(outcome) : errorCategory(failure);
      if (error != null) {
        line = line.addKeyValue("error", error);
      }
      line.log("operation");
    }
    try {
      listener.onOutcome(invocation.tenant(), invocation.tool(), kind, duration);
      if (outcome instanceof Executed executed && executed.response().status() < 400) {
        listener.onEffect(invocation.tenant(), invocation.tool());
      }
      if (failure instanceof StoreUnavailableException) {
        listener.onStorageFault();
      }
    } catch (RuntimeException e) {
      LOG.warn("an outcome listener threw; ignoring it", e);
    }
  }

  /**
   * The error category of an answer that is not a recorded outcome: the slug of the problem type
   * the HTTP API and MCP answer with. Null for an execution or a replay.
   */
  private static String errorCategory(ExecutionOutcome outcome) {
    ProblemType type;
    if (outcome instanceof Executed || outcome instanceof Replayed) {
      return null;
    } else if (outcome instanceof KeyReused) {
      type = ProblemType.KEY_REUSED;
    } else if (outcome instanceof InProgress) {
      type = ProblemType.IN_PROGRESS;
    } else if (outcome instanceof OutcomeUnknown) {
      type = ProblemType.OUTCOME_UNKNOWN;
    } else if (outcome instanceof NotExecuted) {
      type = ProblemType.NOT_EXECUTED;
    } else if (outcome instanceof InvalidParameters) {
      type = ProblemType.INVALID_PARAMETERS;
    } else if (outcome instanceof UnknownTool) {
      type = ProblemType.UNKNOWN_TOOL;
    } else if (outcome instanceof ExecutionOutcome.ToolUnavailable) {
      type = ProblemType.TOOL_UNAVAILABLE;
    } else if (outcome instanceof Busy) {
      type = ProblemType.STORE_BUSY;
    } else {
      return outcome.kind();
    }
    return type.slug();
  }

  private static String errorCategory(RuntimeException failure) {
    if (failure instanceof ToolExecutionException) {
      return ProblemType.TOOL_FAILED.slug();
    }
    if (failure instanceof TransientStoreException) {
      return ProblemType.STORE_BUSY.slug();
    }
    if (failure instanceof StoreUnavailableException) {
      return ProblemType.STORE_UNAVAILABLE.slug();
    }
    return ProblemType.INTERNAL.slug();
  }

  /** UTF-8 length of a string, without encoding it. */
  static long utf8Length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /** A response over the limit; unwinds the transaction so that the effect rolls back. */
  private static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final long bytes;

    TooLarge(long bytes) {
      super(null, null, false, false);
      this.bytes = bytes;
    }
  }

  private sealed interface TxResult {
    record Done(OperationRecord record) implements TxResult {}

    record Taken(OperationRecord record) implements TxResult {}

    record Contended() implements TxResult {}

    record Gone(Tombstone tombstone) implements TxResult {}

    record Limited(Duration refill) implements TxResult {}
  }

  /** Builds an engine; the store and tools are required, everything else has defaults. */
  public static final class Builder {
    private final LedgerStore store;
    private final ToolRegistry tools;
    private EngineConfig config = EngineConfig.defaults();
    private OutcomeListener listener = OutcomeListener.NONE;
    private KeyHasher keys;
    private DownstreamKeys downstreamKeys;
    private Optional<SharedRateBuckets> sharedBuckets = Optional.empty();

    private Builder(LedgerStore store, ToolRegistry tools) {
      this.store = Objects.requireNonNull(store, "store");
      this.tools = Objects.requireNonNull(tools, "tools");
    }

    public Builder config(EngineConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    public Builder listener(OutcomeListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * How keys are named in logs: give the ledger's ({@code JdbcLedgerStore.keyHasher()}) so that
     * every node and {@code toolledger ops hash-key} agree. Default: {@link KeyHasher#ephemeral()},
     * whose hashes correlate this engine's lines only.
     */
    public Builder keyHasher(KeyHasher keys) {
      this.keys = Objects.requireNonNull(keys, "keyHasher");
      return this;
    }

    /**
     * How external tools' downstream keys are derived: give the ledger's ({@code
     * JdbcLedgerStore.downstreamKeys()}) so that every node derives the same key for an operation.
     * Default: {@link DownstreamKeys#ephemeral()}. Either way each claim stores the key it was made
     * with, and recovery sends that one.
     */
    public Builder downstreamKeys(DownstreamKeys downstreamKeys) {
      this.downstreamKeys = Objects.requireNonNull(downstreamKeys, "downstreamKeys");
      return this;
    }

    /**
     * Applies {@link EngineConfig#newOperationLimit()} through these buckets, shared by every node
     * that uses the same ones, instead of a bucket per tenant in this node's memory (the default,
     * with which N nodes admit N times the limit). Each new operation then asks the buckets once
     * (one statement on the ledger's database); replays and lookups never do.
     */
    public Builder sharedRateBuckets(SharedRateBuckets buckets) {
      this.sharedBuckets = Optional.of(Objects.requireNonNull(buckets, "buckets"));
      return this;
    }

    /**
     * @throws IllegalArgumentException when the configuration overrides the retention of a tool
     *     this engine does not have
     */
    public LedgerEngine build() {
      for (String tool : config.retentionOverrides().keySet()) {
        if (tools.find(tool).isEmpty()) {
          throw new IllegalArgumentException("retention: no tool is named " + tool);
        }
      }
      if (keys == null) {
        keys = KeyHasher.ephemeral();
      }
      if (downstreamKeys == null) {
        downstreamKeys = DownstreamKeys.ephemeral();
      }
      return new LedgerEngine(this);
    }
  }
}
