package dev.toolledger.cli;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExpirySweeper;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.SweepReport;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.JdbcLedgerStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code toolledger sweep}: one pass of what every serving node's sweeper does periodically. */
@Command(
    name = "sweep",
    mixinStandardHelpOptions = true,
    description = {
      "Delete records whose retention ended, a batch per transaction, leaving a tombstone for each;"
          + " then delete tombstones whose window ended. IN_PROGRESS and UNKNOWN operations are"
          + " never deleted. Safe while nodes serve and sweep themselves.",
      "Uses the tombstone window the serving nodes recorded in the ledger."
    })
final class SweepCommand implements Callable<Integer> {
  @Mixin DatabaseOptions database;

  @Option(
      names = "--tombstone-window",
      paramLabel = "DURATION",
      description =
          "How long a tombstone refuses a late retry after the record's retention ended"
              + " (default: the window the serving nodes recorded in the ledger, else 7d); a"
              + " window other than the recorded one is refused.",
      converter = DurationConverter.class)
  Duration tombstoneWindow;

  @Option(
      names = "--batch-size",
      paramLabel = "N",
      description = "Records (or tombstones) deleted per transaction (default: ${DEFAULT-VALUE}).",
      defaultValue = "" + ExpirySweeper.DEFAULT_BATCH_SIZE)
  int batchSize;

  @Override
  public Integer call() {
    try (JdbcLedgerStore store = database.open()) {
      Optional<Duration> recorded =
          Optional.ofNullable(store.settings().recorded().get("tombstone-window"))
              .map(Duration::parse);
      if (tombstoneWindow != null
          && recorded.isPresent()
          && !recorded.get().equals(tombstoneWindow)) {
        throw new IllegalArgumentException(
            "--tombstone-window "
                + tombstoneWindow
                + " differs from the ledger's "
                + recorded.get()
                + ", which the serving nodes use; leave the option out to use the ledger's, or"
                + " change it for every node with serve --adopt-retention-settings");
      }
      Duration window =
          tombstoneWindow != null
              ? tombstoneWindow
              : recorded.orElse(EngineConfig.DEFAULT_TOMBSTONE_WINDOW);
      // Sweeping reads the expiry each record was given when it completed; it needs no tools.
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(List.of()))
              .config(EngineConfig.builder().tombstoneWindow(window).build())
              .build();
      SweepReport report = engine.sweep(batchSize);
      System.out.println(
          "toolledger: "
              + report
              + " in "
              + report.transactions()
              + " transactions ("
              + store.description()
              + ")");
    }
    return 0;
  }
}
