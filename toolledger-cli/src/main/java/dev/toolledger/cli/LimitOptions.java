package dev.toolledger.cli;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.RateLimit;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** Limits a node enforces on what callers make it do; shared by the commands that run a node. */
final class LimitOptions {
  @Option(
      names = "--rate-limit",
      paramLabel = "N/s|N/m|N/h|off",
      description =
          "New operations each tenant may start (bursts of up to N); replays and lookups do not"
              + " count. Across all nodes on PostgreSQL, per node on SQLite: see"
              + " --rate-limit-scope (default: ${DEFAULT-VALUE}).",
      defaultValue = "1000/s",
      converter = RateConverter.class)
  RateLimit rateLimit;

  /** Where the rate limit's buckets are kept. */
  enum Scope {
    /** Shared on PostgreSQL, per node on SQLite. */
    AUTO,
    /** In this node's memory: N nodes allow N times the limit. */
    NODE,
    /** In the ledger's database, shared by every node on it (PostgreSQL only). */
    SHARED
  }

  @Option(
      names = "--rate-limit-scope",
      paramLabel = "auto|node|shared",
      description =
          "Where --rate-limit is counted: shared (in the database, every node together: one"
              + " statement per new operation; PostgreSQL only), node (in memory: N nodes allow N"
              + " times the limit) or auto: shared on PostgreSQL, node on SQLite"
              + " (default: ${DEFAULT-VALUE}).",
      defaultValue = "auto")
  Scope rateLimitScope;

  @Option(
      names = "--max-response-bytes",
      paramLabel = "N",
      description =
          "Largest tool response the ledger records; a larger one is rolled back and answered 500"
              + " response-too-large (default: ${DEFAULT-VALUE}).",
      defaultValue = "" + EngineConfig.DEFAULT_MAX_RESPONSE_BYTES)
  int maxResponseBytes;

  EngineConfig.Builder apply(EngineConfig.Builder engine) {
    engine.maxResponseBytes(maxResponseBytes);
    return rateLimit == null
        ? engine.unlimitedNewOperations()
        : engine.newOperationLimit(rateLimit);
  }

  /** Whether the limit is shared by the nodes on {@code dialect}'s ledger. */
  boolean shared(SqlDialect dialect) {
    return switch (rateLimitScope) {
      case SHARED -> true;
      case NODE -> false;
      case AUTO -> dialect == SqlDialect.POSTGRESQL;
    };
  }

  /** Reads {@code 100/s}, {@code 600/m}, {@code 5000/h} or {@code off} (null: unlimited). */
  static final class RateConverter implements ITypeConverter<RateLimit> {
    private static final Pattern RATE = Pattern.compile("(\\d+)/(s|m|h)");

    @Override
    public RateLimit convert(String value) {
      String v = value.strip();
      if (v.equalsIgnoreCase("off")) {
        return null;
      }
      Matcher m = RATE.matcher(v);
      if (!m.matches()) {
        throw new TypeConversionException(
            "'" + value + "' is not a rate; write for example 100/s, 600/m, 5000/h or off");
      }
      long permits = Long.parseLong(m.group(1));
      Duration period =
          switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(1);
            case "m" -> Duration.ofMinutes(1);
            default -> Duration.ofHours(1);
          };
      try {
        return new RateLimit(permits, period);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
