package dev.toolledger.cli;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.ops.OperationCatalog;
import dev.toolledger.jdbc.ops.OperationFilter;
import dev.toolledger.jdbc.ops.OperationSummary;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code toolledger ops}: operations as an operator sees them, across tenants. */
@Command(
    name = "ops",
    mixinStandardHelpOptions = true,
    description = {
      "List operations by state, tenant and tool; show one with its timeline; compute the hash"
          + " that log lines carry for a key."
    },
    subcommands = {
      OpsCommand.ListOperations.class,
      OpsCommand.Show.class,
      OpsCommand.HashKey.class
    })
final class OpsCommand {

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "List operations, newest first (the oldest first for --state unknown or in_progress,"
            + " which wait longest for attention).",
        "Lists of COMPLETED or NOT_EXECUTED operations, and of a key without --tenant, read the"
            + " whole operations table."
      })
  static final class ListOperations implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Option(
        names = "--state",
        paramLabel = "STATE",
        description = "in_progress, completed, not_executed or unknown. Default: any.")
    OperationState state;

    @Option(names = "--tenant", paramLabel = "NAME", description = "Default: every tenant.")
    String tenant;

    @Option(names = "--tool", paramLabel = "NAME", description = "Default: every tool.")
    String tool;

    @Option(names = "--key", paramLabel = "KEY", description = "Only this operation key.")
    String key;

    @Option(
        names = "--limit",
        defaultValue = "" + OperationFilter.DEFAULT_LIMIT,
        description = "At most this many rows, up to 1000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    public Integer call() {
      OperationFilter filter =
          OperationFilter.builder()
              .state(state)
              .tenant(tenant == null ? null : TenantId.of(tenant))
              .tool(tool)
              .key(key == null ? null : OperationKey.of(key))
              .oldestFirst(state == OperationState.UNKNOWN || state == OperationState.IN_PROGRESS)
              .limit(limit)
              .build();
      try (JdbcLedgerStore store = database.open()) {
        print(OperationCatalog.of(store).list(filter), System.out);
      }
      return 0;
    }

    static void print(List<OperationSummary> rows, PrintStream out) {
      out.printf(
          "%-16s %-36s %-16s %-12s %-6s %-24s %s%n",
          "TENANT", "KEY", "TOOL", "STATE", "STATUS", "CREATED", "CLAIM");
      for (OperationSummary row : rows) {
        out.printf(
            "%-16s %-36s %-16s %-12s %-6s %-24s %s%n",
            row.tenant(),
            row.key().value(),
            row.tool().orElse("-"),
            row.state(),
            row.status().map(String::valueOf).orElse("-"),
            row.createdAt(),
            row.owner()
                .map(owner -> owner + row.leaseUntil().map(until -> " until " + until).orElse(""))
                .orElse(""));
      }
      if (rows.isEmpty()) {
        out.println("(no operations)");
      }
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Show one operation: its state, its recorded outcome and its timeline.")
  static final class Show implements Callable<Integer> {
    @Mixin DatabaseOptions database;
    @Mixin PluginOptions plugins;

    @Parameters(paramLabel = "KEY", description = "The operation key.")
    String key;

    @Option(names = "--tenant", required = true, description = "The tenant the key belongs to.")
    String tenant;

    @Override
    public Integer call() {
      TenantId tenantId = TenantId.of(tenant);
      OperationKey operationKey = OperationKey.of(key);
      try (JdbcLedgerStore store = database.open()) {
        // The engine derives the one step of a transactional operation, which is not stored.
        LedgerEngine engine =
            LedgerEngine.builder(store, ToolRegistry.of(plugins.tools(store))).build();
        Optional<OperationRecord> record = engine.lookup(tenantId, operationKey);
        List<HistoryEntry> history = engine.history(tenantId, operationKey);
        if (record.isEmpty() && history.isEmpty()) {
          System.err.println("toolledger: tenant " + tenantId + " has no operation with this key");
          return 1;
        }
        print(
            operationKey,
            tenantId,
            store.keyHasher().hash(tenantId, operationKey),
            record,
            history,
            System.out);
      }
      return 0;
    }

    static void print(
        OperationKey key,
        TenantId tenant,
        String logKey,
        Optional<OperationRecord> record,
        List<HistoryEntry> history,
        PrintStream out) {
      out.println("key:       " + key.value());
      out.println("tenant:    " + tenant);
      out.println("in logs:   key=" + logKey);
      if (record.isPresent()) {
        OperationRecord r = record.get();
        out.println(
            "tool:      "
                + r.intent().map(i -> i.tool() + " (version " + i.toolVersion() + ")").orElse("-"));
        out.println("state:     " + r.state());
        out.println("created:   " + r.createdAt());
        out.println("completed: " + r.completedAt().map(Instant::toString).orElse("-"));
        out.println("expires:   " + r.expiresAt().map(Instant::toString).orElse("-"));
        r.response()
            .ifPresent(
                response -> out.println("response:  " + response.status() + " " + response.body()));
      } else {
        out.println("state:     (no record: the claim was released, see the timeline)");
      }
      out.println("timeline:");
      for (HistoryEntry step : history) {
        out.printf(
            "  %-24s %-13s -> %-13s %s [%s, fence %d]%n",
            step.at(),
            step.from().map(Enum::name).orElse("(new)"),
            step.to(),
            step.cause(),
            step.actor(),
            step.fence());
      }
    }
  }

  @Command(
      name = "hash-key",
      mixinStandardHelpOptions = true,
      description = {
        "Print the hash that log lines carry for a key (their key field), to find them.",
        "HMAC-SHA256 with the ledger's own secret, over the tenant and the key: without the"
            + " secret a log line does not confirm a guessed key. Reads the secret from the"
            + " ledger (--db); a ledger without one gets one, as at a node's first start."
      })
  static final class HashKey implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Parameters(
        paramLabel = "KEY",
        description = "The operation key; - reads it from the first line of standard input.")
    String key;

    @Option(names = "--tenant", required = true, description = "The tenant the key belongs to.")
    String tenant;

    @Override
    public Integer call() throws IOException {
      TenantId tenantId = TenantId.of(tenant);
      OperationKey operationKey = OperationKey.of("-".equals(key) ? firstLineOfStdin() : key);
      try (JdbcLedgerStore store = database.open()) {
        System.out.println(store.keyHasher().hash(tenantId, operationKey));
      }
      return 0;
    }

    private static String firstLineOfStdin() throws IOException {
      String line =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      return line == null ? "" : line.strip();
    }
  }
}
