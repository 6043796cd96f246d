package dev.toolledger.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.Expired;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.ResponseTooLarge;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.ClaimResult;
import dev.toolledger.core.store.NewOperation;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.store.UncertainCommitException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transactional tool's execution: the claim, the tool's effect and the completed record in one
 * write transaction, so that the effect commits with its outcome or not at all. A key the claim
 * finds recorded is answered like any recorded key ({@link RecordedKeys}).
 */
final class TransactionalPath {
  /** The engine's logger: operators filter the engine's lines by its name. */
  private static final Logger LOG = LoggerFactory.getLogger(LedgerEngine.class);

  private final EngineConfig config;
  private final Writes writes;
  private final KeyHasher keys;
  private final RecordedKeys recorded;

  TransactionalPath(EngineConfig config, Writes writes, KeyHasher keys, RecordedKeys recorded) {
    this.config = config;
    this.writes = writes;
    this.keys = keys;
    this.recorded = recorded;
  }

  /**
   * @param deadline {@link System#nanoTime()} past which the caller stops waiting for a claim
   * @param limitOnceClaimed the new-operation limit to take inside the transaction, once the claim
   *     found the key free; empty when it was taken before (or there is none)
   */
  ExecutionOutcome execute(
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
                long bytes = Utf8.length(body);
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
      return NewOperationLimiter.refused(limited.refill());
    }
    if (result instanceof TxResult.Taken taken) {
      return recorded.answer(taken.record(), intent, deadline);
    }
    return new InProgress(config.retryAfter());
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

  /** What the transaction decided, acted on once it has ended. */
  private sealed interface TxResult {
    record Done(OperationRecord record) implements TxResult {}

    record Taken(OperationRecord record) implements TxResult {}

    record Contended() implements TxResult {}

    record Gone(Tombstone tombstone) implements TxResult {}

    record Limited(Duration refill) implements TxResult {}
  }
}
