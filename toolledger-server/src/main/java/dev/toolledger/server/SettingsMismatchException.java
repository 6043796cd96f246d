package dev.toolledger.server;

import dev.toolledger.jdbc.LedgerSettings.Difference;
import dev.toolledger.protocol.ToolLedgerException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A node was started with retention settings other than those recorded in the ledger it shares with
 * other nodes. Nothing was served; see docs/retention.md, "Every node the same settings".
 */
public final class SettingsMismatchException extends ToolLedgerException {
  private static final long serialVersionUID = 1L;

  private final transient List<Difference> differences;

  SettingsMismatchException(List<Difference> differences) {
    super(
        "this node's retention settings differ from those recorded in the ledger, which every"
            + " node sharing it must use ("
            + differences.stream().map(Difference::toString).collect(Collectors.joining("; "))
            + "). Start this node with the ledger's values (--retention TOOL=DURATION,"
            + " --tombstone-window), or make this node's values the ledger's with"
            + " --adopt-retention-settings and restart the other nodes with them");
    this.differences = List.copyOf(differences);
  }

  /** The settings that differ. */
  public List<Difference> differences() {
    return differences;
  }
}
