package dev.toolledger.cli;

import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExpirySweeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** How long records are kept and how they are swept; shared by the commands that run a node. */
final class RetentionOptions {
  @Option(
      names = "--retention",
      paramLabel = "TOOL=DURATION",
      description =
          "Keep the records of TOOL this long instead of what the tool declares (7d unless it says"
              + " otherwise); at least the longest time in which a caller may still retry an"
              + " action. Repeatable.",
      converter = OverrideConverter.class)
  List<ToolRetention> retention = new ArrayList<>();

  @Option(
      names = "--tombstone-window",
      paramLabel = "DURATION",
      description =
          "After a record's retention, how long its tombstone refuses a late retry with 410 before"
              + " the key is new again; 0 keeps no tombstones (default: ${DEFAULT-VALUE}).",
      defaultValue = "7d",
      converter = DurationConverter.class)
  Duration tombstoneWindow;

  @Option(
      names = "--sweep-interval",
      paramLabel = "DURATION",
      description =
          "Pause between this node's sweeps of expired records; 0 turns sweeping off here"
              + " (default: ${DEFAULT-VALUE}).",
      defaultValue = "1m",
      converter = DurationConverter.class)
  Duration sweepInterval = ExpirySweeper.DEFAULT_INTERVAL;

  @Option(
      names = "--adopt-retention-settings",
      description =
          "Make this node's --retention and --tombstone-window the ledger's, replacing those the"
              + " nodes sharing it recorded (each change is logged as a warning); without it, a"
              + " node whose settings differ from the ledger's refuses to start.")
  boolean adoptSettings;

  EngineConfig.Builder apply(EngineConfig.Builder engine) {
    retention.forEach(o -> engine.retention(o.tool(), o.retention()));
    return engine.tombstoneWindow(tombstoneWindow);
  }

  /** One {@code TOOL=DURATION}. */
  record ToolRetention(String tool, Duration retention) {}

  static final class OverrideConverter implements ITypeConverter<ToolRetention> {
    @Override
    public ToolRetention convert(String value) {
      int eq = value.indexOf('=');
      if (eq <= 0 || eq == value.length() - 1) {
        throw new TypeConversionException(
            "--retention takes TOOL=DURATION, for example create-note=30d, not '" + value + "'");
      }
      Duration retention = new DurationConverter().convert(value.substring(eq + 1));
      if (retention.isNegative() || retention.isZero()) {
        throw new TypeConversionException("a retention must be positive: '" + value + "'");
      }
      return new ToolRetention(value.substring(0, eq).strip(), retention);
    }
  }
}
