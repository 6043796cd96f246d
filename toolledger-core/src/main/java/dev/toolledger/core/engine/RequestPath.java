package dev.toolledger.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InvalidParameters;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.ExecutionOutcome.UnknownTool;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Decides what a request gets: the tool and its parameters checked, the intent fingerprinted, then
 * the recorded outcome of a known key ({@link RecordedKeys}), a refusal by the new-operation rate
 * limit, or an execution on the tool's path ({@link TransactionalPath}, {@link ExternalPath}).
 */
final class RequestPath {
  private final LedgerStore store;
  private final ToolRegistry tools;
  private final EngineConfig config;
  private final TransactionalPath transactional;
  private final ExternalPath external;
  private final RecordedKeys recorded;
  private final Optional<NewOperationLimiter> limiter;
  private final Optional<SharedRateBuckets> sharedBuckets;

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

  /**
   * @param buckets shared rate buckets given to the engine's builder, if any: they replace this
   *     node's own limiter, and apply when the configuration sets a new-operation limit
   */
  RequestPath(
      LedgerStore store,
      ToolRegistry tools,
      EngineConfig config,
      Optional<SharedRateBuckets> buckets,
      TransactionalPath transactional,
      ExternalPath external,
      RecordedKeys recorded) {
    this.store = store;
    this.tools = tools;
    this.config = config;
    this.transactional = transactional;
    this.external = external;
    this.recorded = recorded;
    this.sharedBuckets = config.newOperationLimit().flatMap(limit -> buckets);
    this.limiter =
        buckets.isPresent()
            ? Optional.empty()
            : config
                .newOperationLimit()
                .map(limit -> new NewOperationLimiter(limit, config.clock()));
    // A limit kept in memory is taken inside the transaction, once the claim has found the key
    // free (no round trip); a limit shared in the database is a statement of its own, taken only
    // once the key is known to be new, so it keeps the read before the transaction.
    this.claimDecidesReplay = store.decidesClaimInTransaction() && sharedBuckets.isEmpty();
  }

  /** See {@link LedgerEngine#execute}; reporting is the caller's. */
  ExecutionOutcome decide(Invocation invocation) {
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

    if (tool.tool() instanceof TransactionalTool transactionalTool
        && claimDecidesReplay
        && !recent.contains(invocation.tenant(), invocation.key())) {
      // The transaction's claim reads the key anyway, under the key's lock: a recorded key is
      // answered from that read, and a new key is spared a round trip. A key this node recorded
      // or replayed lately is read first instead (below): a retry is likely, and a read is
      // cheaper than a transaction.
      return remember(
          invocation,
          transactional.execute(
              transactionalTool, invocation, intent, parameters, deadline, limiter));
    }
    Optional<OperationRecord> existing = store.find(invocation.tenant(), invocation.key());
    if (existing.isPresent()) {
      return remember(invocation, recorded.answer(existing.get(), intent, deadline));
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
      return NewOperationLimiter.refused(refill.get());
    }
    if (tool.tool() instanceof TransactionalTool transactionalTool) {
      return remember(
          invocation,
          transactional.execute(
              transactionalTool, invocation, intent, parameters, deadline, Optional.empty()));
    }
    ExternalPath.Result result =
        external.execute((ExternalTool) tool.tool(), invocation, intent, parameters, deadline);
    if (result instanceof ExternalPath.Result.Settle settle) {
      return recorded.answer(settle.record(), intent, deadline);
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
}
