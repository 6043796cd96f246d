package dev.toolledger.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.InvalidParameters;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.engine.ExecutionOutcome.NotExecuted;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.ExecutionOutcome.UnknownTool;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.identity.OperationKey;
import dev.toolledger.core.identity.TenantId;
import dev.toolledger.core.json.Json;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.OperationState;
import dev.toolledger.core.operation.StoredResponse;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.tool.ToolDescriptor;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.core.tool.ToolResponse;
import dev.toolledger.core.tool.TransactionalTool;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
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
 * one write transaction.
 */
public final class LedgerEngine {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerEngine.class);

  private final LedgerStore store;
  private final ToolRegistry tools;
  private final EngineConfig config;
  private final OutcomeListener listener;

  private LedgerEngine(Builder b) {
    this.store = b.store;
    this.tools = b.tools;
    this.config = b.config;
    this.listener = b.listener;
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

  /**
   * The recorded state of a key in a tenant, or empty. A key of another tenant is empty too: a key
   * grants nothing by itself.
   */
  public Optional<OperationRecord> lookup(TenantId tenant, OperationKey key) {
    return store.find(tenant, key);
  }

  /**
   * Decides and, when the key is new, executes an invocation.
   *
   * @throws ToolExecutionException when the tool threw; nothing was recorded
   * @throws dev.toolledger.core.store.StoreException when the database failed for good
   */
  public ExecutionOutcome execute(Invocation invocation) {
    long started = System.nanoTime();
    ExecutionOutcome outcome;
    try {
      outcome = decide(invocation);
    } catch (RuntimeException e) {
      report(invocation, "failed", started);
      throw e;
    }
    report(invocation, outcome.kind(), started);
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

    Optional<OperationRecord> existing = store.find(invocation.tenant(), invocation.key());
    if (existing.isPresent()) {
      return settle(existing.get(), intent, deadline);
    }
    if (tool.tool() instanceof TransactionalTool transactional) {
      return executeInTransaction(transactional, invocation, intent, parameters, deadline);
    }
    throw new IllegalStateException("no execution path for tool kind " + tool.tool().getClass());
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
      long deadline) {
    String toolName = tool.descriptor().name();
    Duration retention = tool.descriptor().retention();
    for (int attempt = 1; ; attempt++) {
      try {
        TxResult result =
            store.inTransaction(
                tx -> {
                  Instant now = config.clock().instant();
                  Duration wait = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                  ClaimResult claim =
                      tx.claim(
                          new NewOperation(invocation.tenant(), invocation.key(), intent, now),
                          wait);
                  if (claim instanceof ClaimResult.Existing existing) {
                    return new TxResult.Taken(existing.record());
                  }
                  if (claim instanceof ClaimResult.Contended) {
                    return new TxResult.Contended();
                  }
                  ToolResponse response;
                  try {
                    response =
                        tool.execute(
                            new EngineTransactionContext(invocation.tenant(), tx, now), parameters);
                  } catch (Exception e) {
                    throw new ToolExecutionException(toolName, e);
                  }
                  Objects.requireNonNull(response, () -> "tool " + toolName + " returned null");
                  StoredResponse stored =
                      new StoredResponse(response.status(), Json.write(response.body()));
                  Instant completedAt = config.clock().instant();
                  Instant expiresAt = completedAt.plus(retention);
                  tx.complete(
                      invocation.tenant(), invocation.key(), stored, completedAt, expiresAt);
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
        if (result instanceof TxResult.Done done) {
          return new Executed(done.record());
        }
        if (result instanceof TxResult.Taken taken) {
          return settle(taken.record(), intent, deadline);
        }
        return new InProgress(config.retryAfter());
      } catch (TransientStoreException e) {
        if (attempt >= config.transactionAttempts()) {
          LOG.atWarn()
              .addKeyValue("tenant", invocation.tenant())
              .addKeyValue("tool", toolName)
              .addKeyValue("key", invocation.key().logHash())
              .addKeyValue("attempts", attempt)
              .log("database stayed busy; answering busy: {}", e.getMessage());
          return new Busy(config.retryAfter());
        }
        sleep(backoff(attempt));
      }
    }
  }

  private long backoff(int attempt) {
    long cap = config.retryCap().toMillis();
    long ceiling = Math.min(cap, config.retryBase().toMillis() << Math.min(attempt - 1, 20));
    return ceiling <= 0 ? 0 : ThreadLocalRandom.current().nextLong(ceiling + 1);
  }

  private static void sleep(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new dev.toolledger.core.ToolLedgerException("interrupted while waiting", e);
    }
  }

  private void report(Invocation invocation, String kind, long startedNanos) {
    Duration duration = Duration.ofNanos(System.nanoTime() - startedNanos);
    LOG.atInfo()
        .addKeyValue("outcome", kind)
        .addKeyValue("tenant", invocation.tenant())
        .addKeyValue("tool", invocation.tool())
        .addKeyValue("key", invocation.key().logHash())
        .addKeyValue("ms", duration.toMillis())
        .log("operation");
    try {
      listener.onOutcome(invocation.tenant(), invocation.tool(), kind, duration);
    } catch (RuntimeException e) {
      LOG.warn("an outcome listener threw; ignoring it", e);
    }
  }

  private sealed interface TxResult {
    record Done(OperationRecord record) implements TxResult {}

    record Taken(OperationRecord record) implements TxResult {}

    record Contended() implements TxResult {}
  }

  /** Builds an engine; the store and tools are required, everything else has defaults. */
  public static final class Builder {
    private final LedgerStore store;
    private final ToolRegistry tools;
    private EngineConfig config = EngineConfig.defaults();
    private OutcomeListener listener = OutcomeListener.NONE;

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

    public LedgerEngine build() {
      return new LedgerEngine(this);
    }
  }
}
