package dev.toolledger.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.problem.FailureWords;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.LeaseClaim;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.store.UncertainCommitException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The three steps of an effect outside the database (claim with a lease, perform outside any
 * transaction, record under the fencing token) and the settlement of an uncertain effect, shared by
 * the request path and the recovery worker.
 */
final class ExternalPath {
  private static final Logger LOG = LoggerFactory.getLogger(ExternalPath.class);

  private final LedgerStore store;
  private final EngineConfig config;
  private final Writes writes;
  private final KeyHasher keys;
  private final DownstreamKeys downstreamKeys;

  ExternalPath(
      LedgerStore store,
      EngineConfig config,
      Writes writes,
      KeyHasher keys,
      DownstreamKeys downstreamKeys) {
    this.store = store;
    this.config = config;
    this.writes = writes;
    this.keys = keys;
    this.downstreamKeys = downstreamKeys;
  }

  /** What the request path answers, or the record it must settle like any existing key. */
  sealed interface Result {
    record Answer(ExecutionOutcome outcome) implements Result {}

    record Settle(OperationRecord record) implements Result {}
  }

  /** How a settlement left the operation. */
  enum Settled {
    COMPLETED,
    NOT_EXECUTED,
    UNKNOWN,
    STILL_IN_PROGRESS,
    RELEASED,
    CLAIM_LOST
  }

  String actor() {
    return "node:" + config.nodeId();
  }

  Result execute(
      ExternalTool tool,
      Invocation invocation,
      OperationIntent intent,
      JsonNode parameters,
      long deadline) {
    TenantId tenant = invocation.tenant();
    OperationKey key = invocation.key();
    Instant now = config.clock().instant();
    // The claim's owner token is this node plus a nonce for this invocation, so that a retried
    // claim transaction whose first COMMIT did land (its acknowledgement was lost) recognises its
    // own claim instead of waiting for it. The downstream key is stored with the claim: recovery
    // and takeovers send that one, whatever this installation derives later.
    String downstreamKey = downstreamKeys.derive(tenant, key);
    LeaseClaim lease =
        new LeaseClaim(
            config.nodeId() + "/" + Long.toHexString(ThreadLocalRandom.current().nextLong()),
            tool.lease(),
            Json.write(parameters),
            downstreamKey);
    ClaimResult claim;
    try {
      claim =
          writes.run(
              tx -> {
                Duration wait = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                ClaimResult result =
                    tx.claimLeased(new NewOperation(tenant, key, intent, now), lease, wait);
                if (result instanceof ClaimResult.Claimed claimed) {
                  tx.appendHistory(
                      tenant,
                      key,
                      new HistoryEntry(
                          now,
                          Optional.empty(),
                          OperationState.IN_PROGRESS,
                          "claimed; lease of " + tool.lease().toMillis() + " ms",
                          actor(),
                          claimed.fence()));
                }
                return result;
              });
    } catch (UncertainCommitException e) {
      // The claim may have committed: then it stays IN_PROGRESS until its lease ends, and
      // recovery settles it. Not "busy", which would say that nothing happened.
      return new Result.Answer(new ExecutionOutcome.InProgress(config.retryAfter()));
    } catch (TransientStoreException e) {
      return new Result.Answer(new ExecutionOutcome.Busy(config.retryAfter()));
    }
    if (claim instanceof ClaimResult.Existing existing) {
      return new Result.Settle(existing.record());
    }
    if (claim instanceof ClaimResult.Contended) {
      return new Result.Answer(new ExecutionOutcome.InProgress(config.retryAfter()));
    }
    if (claim instanceof ClaimResult.Expired expired) {
      return new Result.Answer(new ExecutionOutcome.Expired(expired.tombstone()));
    }
    long fence = ((ClaimResult.Claimed) claim).fence();
    EffectContext context = new EffectContext(tenant, downstreamKey, fence);

    EffectResult result;
    try {
      result = tool.perform(context, parameters);
    } catch (Exception e) {
      LOG.atWarn()
          .addKeyValue("tenant", tenant.value())
          .addKeyValue("tool", tool.name())
          .addKeyValue("key", keys.hash(tenant, key))
          .log(
              "the effect failed with {}; it may or may not have happened",
              e.getClass().getSimpleName());
      Settled settled =
          settle(
              tool,
              tenant,
              key,
              fence,
              parameters,
              downstreamKey,
              "the effect failed with " + FailureWords.of(e) + "; it may or may not have happened");
      return answerAfter(settled, tenant, key);
    }
    if (result instanceof EffectResult.NotDone notDone) {
      return release(tenant, key, fence, notDone.reason());
    }
    ToolResponse response = ((EffectResult.Done) result).response();
    return record(
        tool,
        new NewOperation(tenant, key, intent, now),
        fence,
        response,
        "effect performed; outcome recorded");
  }

  private Result record(
      ExternalTool tool, NewOperation claimed, long fence, ToolResponse response, String cause) {
    TenantId tenant = claimed.tenant();
    OperationKey key = claimed.key();
    StoredResponse stored = new StoredResponse(response.status(), Json.write(response.body()));
    Completion recorded;
    try {
      recorded = complete(tool, tenant, key, fence, stored, cause);
    } catch (TransientStoreException | StoreUnavailableException e) {
      // The effect happened but its outcome could not be written (the database was busy or its
      // storage failed). The claim stays IN_PROGRESS; when its lease expires, recovery settles it
      // (lookup, idempotent replay, or UNKNOWN). Not "nothing was recorded": the claim was.
      LOG.atError()
          .addKeyValue("tenant", tenant.value())
          .addKeyValue("tool", tool.name())
          .addKeyValue("key", keys.hash(tenant, key))
          .log(
              "the effect happened but its outcome could not be recorded; recovery will settle it");
      return new Result.Answer(new ExecutionOutcome.InProgress(config.retryAfter()));
    }
    if (recorded != null) {
      // What was just committed, built here rather than read back: one round trip less per call.
      return new Result.Answer(
          new ExecutionOutcome.Executed(
              new OperationRecord(
                  tenant,
                  key,
                  Optional.of(claimed.intent()),
                  OperationState.COMPLETED,
                  Optional.of(stored),
                  claimed.createdAt(),
                  Optional.of(recorded.at()),
                  Optional.of(recorded.expiresAt()))));
    }
    return new Result.Settle(store.find(tenant, key).orElseThrow());
  }

  /** When a completion was recorded, and until when it is kept. */
  private record Completion(Instant at, Instant expiresAt) {}

  /**
   * Records a completion under the fence; appends why a late result was refused otherwise. A
   * response over the stored-response limit cannot be recorded, and the effect it reports has
   * happened, so the operation becomes UNKNOWN (never executed again; an operator resolves it) and
   * this returns null, as it does when a late result is refused.
   */
  private Completion complete(
      ExternalTool tool,
      TenantId tenant,
      OperationKey key,
      long fence,
      StoredResponse stored,
      String cause) {
    long bytes = Utf8.length(stored.body());
    if (bytes > config.maxResponseBytes()) {
      mark(
          tool,
          tenant,
          key,
          fence,
          OperationState.UNKNOWN,
          cause
              + ", but its response of "
              + bytes
              + " bytes is over the stored-response limit of "
              + config.maxResponseBytes()
              + " bytes and cannot be recorded; the effect happened, so the outcome is left"
              + " unknown for an operator to resolve");
      return null;
    }
    Completion completion =
        writes.run(
            tx -> {
              Instant at = config.clock().instant();
              Instant expiresAt = at.plus(config.retentionOf(tool.descriptor()));
              boolean ok = tx.completeFenced(tenant, key, fence, stored, at, expiresAt);
              if (!ok) {
                Optional<Completion> earlier = ownCompletion(tx, tenant, key, fence, stored);
                if (earlier.isPresent()) {
                  return earlier.get();
                }
              }
              if (ok) {
                tx.appendHistory(
                    tenant,
                    key,
                    new HistoryEntry(
                        at,
                        Optional.of(OperationState.IN_PROGRESS),
                        OperationState.COMPLETED,
                        cause + " (status " + stored.status() + ")",
                        actor(),
                        fence));
              } else {
                refused(tx, tenant, key, fence, at, "a result of fence " + fence + " arrived late");
              }
              return ok ? new Completion(at, expiresAt) : null;
            });
    if (completion != null) {
      writes.expiring.increment();
    }
    return completion;
  }

  /**
   * This completion, when an earlier attempt committed it and the answer to its {@code COMMIT} was
   * lost: the record is COMPLETED with this very response under this very fence. Read, not guessed,
   * and not mistaken for a late result after a takeover, whose completion carries a later fence
   * even when its response is byte-identical (an idempotent downstream answers the same): that one
   * is refused and its arrival recorded in the history.
   */
  private static Optional<Completion> ownCompletion(
      LedgerTransaction tx, TenantId tenant, OperationKey key, long fence, StoredResponse stored) {
    if (tx.fenceOf(tenant, key).orElse(-1) != fence) {
      return Optional.empty();
    }
    return tx.find(tenant, key)
        .filter(r -> r.state() == OperationState.COMPLETED)
        .filter(r -> r.response().filter(stored::equals).isPresent())
        .filter(r -> r.completedAt().isPresent() && r.expiresAt().isPresent())
        .map(r -> new Completion(r.completedAt().get(), r.expiresAt().get()));
  }

  private void refused(
      LedgerTransaction tx,
      TenantId tenant,
      OperationKey key,
      long fence,
      Instant at,
      String what) {
    Optional<OperationRecord> current = tx.find(tenant, key);
    OperationState state = current.map(OperationRecord::state).orElse(OperationState.NOT_EXECUTED);
    tx.appendHistory(
        tenant,
        key,
        new HistoryEntry(
            at,
            Optional.of(state),
            state,
            what + " and was refused: the claim had been taken over",
            actor(),
            fence));
  }

  private Result release(TenantId tenant, OperationKey key, long fence, String reason) {
    boolean released;
    try {
      released =
          writes.run(
              tx -> {
                Instant at = config.clock().instant();
                boolean ok = tx.release(tenant, key, fence);
                if (ok) {
                  tx.appendHistory(
                      tenant,
                      key,
                      new HistoryEntry(
                          at,
                          Optional.of(OperationState.IN_PROGRESS),
                          OperationState.NOT_EXECUTED,
                          "claim released: the tool reported that nothing happened ("
                              + truncate(reason)
                              + "); the key may be retried",
                          actor(),
                          fence));
                } else if (tx.find(tenant, key).isEmpty()) {
                  // Released by an earlier attempt whose COMMIT answer was lost: the claim's row
                  // is gone (a takeover keeps the row), so the key is free as this release meant.
                  return true;
                } else {
                  refused(tx, tenant, key, fence, at, "a release of fence " + fence);
                }
                return ok;
              });
    } catch (TransientStoreException | StoreUnavailableException e) {
      return new Result.Answer(new ExecutionOutcome.InProgress(config.retryAfter()));
    }
    if (released) {
      return new Result.Answer(
          new ExecutionOutcome.ToolUnavailable(truncate(reason), config.retryAfter()));
    }
    return new Result.Settle(store.find(tenant, key).orElseThrow());
  }

  private Result answerAfter(Settled settled, TenantId tenant, OperationKey key) {
    Optional<OperationRecord> current = store.find(tenant, key);
    if (settled == Settled.RELEASED || current.isEmpty()) {
      return new Result.Answer(
          new ExecutionOutcome.ToolUnavailable(
              "the tool reported that nothing happened", config.retryAfter()));
    }
    OperationRecord record = current.get();
    return switch (settled) {
      case COMPLETED -> new Result.Answer(new ExecutionOutcome.Executed(record));
      case NOT_EXECUTED -> new Result.Answer(new ExecutionOutcome.NotExecuted(record));
      case UNKNOWN -> new Result.Answer(new ExecutionOutcome.OutcomeUnknown(record));
      case STILL_IN_PROGRESS ->
          new Result.Answer(new ExecutionOutcome.InProgress(config.retryAfter()));
      default -> new Result.Settle(record);
    };
  }

  /**
   * Settles a leased claim held under {@code fence} whose effect is uncertain: ask the downstream
   * when the tool can, perform again with the same downstream key when the downstream is idempotent
   * by it, and otherwise record UNKNOWN. Never deletes the claim on a guess and never performs a
   * non-idempotent effect twice. A claim that was taken over ({@code fence > 1}) is never deleted
   * at all: when performing again reports that nothing happened, the key is fenced as {@code
   * NOT_EXECUTED} rather than released.
   */
  Settled settle(
      ExternalTool tool,
      TenantId tenant,
      OperationKey key,
      long fence,
      JsonNode parameters,
      String downstreamKey,
      String why) {
    EffectContext context = new EffectContext(tenant, downstreamKey, fence);
    try {
      if (tool.supportsLookup()) {
        DownstreamStatus status;
        try {
          status = tool.lookup(context, parameters);
        } catch (Exception e) {
          return stillInProgress(
              tool,
              tenant,
              key,
              fence,
              why + "; the downstream lookup failed with " + FailureWords.of(e));
        }
        if (status instanceof DownstreamStatus.Found found) {
          StoredResponse stored =
              new StoredResponse(found.response().status(), Json.write(found.response().body()));
          return complete(
                      tool,
                      tenant,
                      key,
                      fence,
                      stored,
                      why + "; reconciled: the downstream lookup found the effect")
                  != null
              ? Settled.COMPLETED
              : Settled.CLAIM_LOST;
        }
        if (status instanceof DownstreamStatus.Absent) {
          return mark(
              tool,
              tenant,
              key,
              fence,
              OperationState.NOT_EXECUTED,
              why + "; reconciled: the downstream lookup found no effect");
        }
        return stillInProgress(
            tool, tenant, key, fence, why + "; the downstream says it is still pending");
      }
      if (tool.idempotentDownstream()) {
        EffectResult result;
        try {
          result = tool.perform(context, parameters);
        } catch (Exception e) {
          return stillInProgress(
              tool,
              tenant,
              key,
              fence,
              why
                  + "; performing again with the same downstream key failed with "
                  + FailureWords.of(e));
        }
        if (result instanceof EffectResult.NotDone notDone) {
          if (fence > 1) {
            // The claim was taken over, and the executor that lost it did not necessarily stop.
            // Deleting the claim would let a new claim of this key start at fence 1 again, which
            // that executor's late result could then complete. Fence the key instead.
            return mark(
                tool,
                tenant,
                key,
                fence,
                OperationState.NOT_EXECUTED,
                why
                    + "; performing again with the same downstream key, the tool reported that"
                    + " nothing happened ("
                    + truncate(notDone.reason())
                    + ")");
          }
          Result released = release(tenant, key, fence, notDone.reason());
          return released instanceof Result.Answer ? Settled.RELEASED : Settled.CLAIM_LOST;
        }
        ToolResponse response = ((EffectResult.Done) result).response();
        StoredResponse stored = new StoredResponse(response.status(), Json.write(response.body()));
        return complete(
                    tool,
                    tenant,
                    key,
                    fence,
                    stored,
                    why
                        + "; performed again with the same downstream key (the downstream is idempotent by it)")
                != null
            ? Settled.COMPLETED
            : Settled.CLAIM_LOST;
      }
      return mark(
          tool,
          tenant,
          key,
          fence,
          OperationState.UNKNOWN,
          why
              + "; the tool has no outcome lookup and no idempotent downstream, so the outcome is"
              + " unknown");
    } catch (TransientStoreException | StoreUnavailableException e) {
      LOG.warn("could not record a settlement; the lease will expire and recovery will retry");
      return Settled.STILL_IN_PROGRESS;
    }
  }

  private Settled stillInProgress(
      ExternalTool tool, TenantId tenant, OperationKey key, long fence, String why) {
    if (fence > config.maxTakeovers()) {
      return mark(
          tool,
          tenant,
          key,
          fence,
          OperationState.UNKNOWN,
          why + "; no settlement after " + (fence - 1) + " takeovers, so the outcome is unknown");
    }
    writes.run(
        tx -> {
          tx.appendHistory(
              tenant,
              key,
              new HistoryEntry(
                  config.clock().instant(),
                  Optional.of(OperationState.IN_PROGRESS),
                  OperationState.IN_PROGRESS,
                  why + "; left in progress until its lease expires",
                  actor(),
                  fence));
          return null;
        });
    return Settled.STILL_IN_PROGRESS;
  }

  /** Records UNKNOWN for a claim whose tool this node does not have. */
  Settled markWithoutTool(TenantId tenant, OperationKey key, long fence, String why) {
    return mark(null, tenant, key, fence, OperationState.UNKNOWN, why);
  }

  private Settled mark(
      ExternalTool tool,
      TenantId tenant,
      OperationKey key,
      long fence,
      OperationState to,
      String why) {
    boolean ok =
        writes.run(
            tx -> {
              Instant at = config.clock().instant();
              Optional<Instant> expires =
                  to == OperationState.NOT_EXECUTED
                      ? Optional.of(
                          at.plus(
                              tool == null
                                  ? dev.toolledger.api.ToolDescriptor.DEFAULT_RETENTION
                                  : config.retentionOf(tool.descriptor())))
                      : Optional.empty();
              boolean changed = tx.settleFenced(tenant, key, fence, to, at, expires);
              if (changed) {
                tx.appendHistory(
                    tenant,
                    key,
                    new HistoryEntry(
                        at, Optional.of(OperationState.IN_PROGRESS), to, why, actor(), fence));
              } else {
                refused(tx, tenant, key, fence, at, "a settlement of fence " + fence);
              }
              return changed;
            });
    if (!ok) {
      return Settled.CLAIM_LOST;
    }
    LOG.atWarn()
        .addKeyValue("tenant", tenant.value())
        .addKeyValue("tool", tool == null ? "?" : tool.name())
        .addKeyValue("key", keys.hash(tenant, key))
        .addKeyValue("state", to.name())
        .log("operation settled");
    return to == OperationState.UNKNOWN ? Settled.UNKNOWN : Settled.NOT_EXECUTED;
  }

  private static String truncate(String reason) {
    return reason.length() <= 200 ? reason : reason.substring(0, 200) + "...";
  }
}
