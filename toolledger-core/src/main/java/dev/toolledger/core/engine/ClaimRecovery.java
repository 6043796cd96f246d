package dev.toolledger.core.engine;

import dev.toolledger.api.ExternalTool;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.store.ExpiredClaim;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationState;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Recovery of external tools' claims whose lease expired ({@link
 * LedgerEngine#recoverExpiredClaims}): each is taken over under a new fence, then settled by the
 * same steps as a request's uncertain effect ({@link ExternalPath#settle}).
 */
final class ClaimRecovery {
  private final LedgerStore store;
  private final ToolRegistry tools;
  private final EngineConfig config;
  private final Writes writes;
  private final ExternalPath external;

  ClaimRecovery(
      LedgerStore store,
      ToolRegistry tools,
      EngineConfig config,
      Writes writes,
      ExternalPath external) {
    this.store = store;
    this.tools = tools;
    this.config = config;
    this.writes = writes;
    this.external = external;
  }

  /** See {@link LedgerEngine#recoverExpiredClaims}. */
  RecoveryReport recover(int limit) {
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
}
