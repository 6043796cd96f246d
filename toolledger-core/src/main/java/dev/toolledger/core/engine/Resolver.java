package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Settles keys on request ({@link LedgerEngine#resolve}): an inquiry fences a key never seen, and
 * an operator's resolution settles an {@code UNKNOWN} operation, each step recorded in the key's
 * history.
 */
final class Resolver {
  private final LedgerStore store;
  private final ToolRegistry tools;
  private final EngineConfig config;
  private final Writes writes;

  Resolver(LedgerStore store, ToolRegistry tools, EngineConfig config, Writes writes) {
    this.store = store;
    this.tools = tools;
    this.config = config;
    this.writes = writes;
  }

  /** See {@link LedgerEngine#tombstone}. */
  Optional<Tombstone> tombstone(TenantId tenant, OperationKey key) {
    Instant now = config.clock().instant();
    return store.findTombstone(tenant, key).filter(t -> t.isLiveAt(now));
  }

  /** See {@link LedgerEngine#resolve}. */
  ResolveOutcome resolve(TenantId tenant, OperationKey key, Resolution resolution, String actor) {
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
}
