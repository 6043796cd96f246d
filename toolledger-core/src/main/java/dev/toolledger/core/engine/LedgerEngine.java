package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.core.engine.ExecutionOutcome.Expired;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
 *
 * <p>This type is the front door; the work is done by package-private collaborators it wires:
 * {@link RequestPath} (deciding a request), {@link TransactionalPath} and {@link ExternalPath}
 * (executing it), {@link RecordedKeys} (answering a known key), {@link Resolver}, {@link
 * ExpirySweep}, {@link ClaimRecovery} and {@link OutcomeReporter} (logs and metrics).
 */
public final class LedgerEngine {
  private final LedgerStore store;
  private final ToolRegistry tools;
  private final EngineConfig config;
  private final OutcomeListener listener;
  private final KeyHasher keys;
  private final SweepPacing sweepPacing;
  private final RequestPath requests;
  private final Resolver resolver;
  private final ExpirySweep expirySweep;
  private final ClaimRecovery recovery;
  private final OutcomeReporter reporter;

  private LedgerEngine(Builder b) {
    this.store = b.store;
    this.tools = b.tools;
    this.config = b.config;
    this.listener = b.listener;
    this.keys = b.keys;
    Writes writes = new Writes(b.store, b.config);
    this.sweepPacing =
        b.config.sweepPacing().orElseGet(() -> SweepPacing.forDialect(b.store.dialect()));
    ExternalPath external = new ExternalPath(b.store, b.config, writes, b.keys, b.downstreamKeys);
    RecordedKeys recorded = new RecordedKeys(b.store, b.config);
    this.requests =
        new RequestPath(
            b.store,
            b.tools,
            b.config,
            b.sharedBuckets,
            new TransactionalPath(b.config, writes, b.keys, recorded),
            external,
            recorded);
    this.resolver = new Resolver(b.store, b.tools, b.config, writes);
    this.expirySweep = new ExpirySweep(b.config, writes, sweepPacing);
    this.recovery = new ClaimRecovery(b.store, b.tools, b.config, writes, external);
    this.reporter = new OutcomeReporter(b.listener, b.keys);
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
    return resolver.tombstone(tenant, key);
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
    return expirySweep.run(batchSize);
  }

  /**
   * How this engine's sweep passes space their batches: the configured {@link
   * EngineConfig#sweepPacing()}, or the store's default ({@link SweepPacing#forDialect}).
   */
  public SweepPacing sweepPacing() {
    return sweepPacing;
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
    return resolver.resolve(tenant, key, resolution, actor);
  }

  /**
   * Takes over leased claims whose lease expired by the database's clock and settles each: by the
   * tool's outcome lookup, by performing again when the downstream is idempotent by its key, or as
   * {@code UNKNOWN}. An expired claim is never deleted and its effect never silently re-run.
   * Several nodes may recover at once; a claim goes to whichever takes it over first.
   */
  public RecoveryReport recoverExpiredClaims(int limit) {
    return recovery.recover(limit);
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
      outcome = requests.decide(invocation);
    } catch (RuntimeException e) {
      reporter.report(invocation, e, "failed", started);
      throw e;
    }
    reporter.report(invocation, outcome, outcome.kind(), started);
    return outcome;
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
     * Builds the engine from the settings given so far.
     *
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
