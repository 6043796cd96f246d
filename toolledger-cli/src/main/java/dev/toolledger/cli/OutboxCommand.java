package dev.toolledger.cli;

import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.jdbc.JdbcLedgerStore;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code toolledger outbox}: see and re-arm outbox events. */
@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    description = "Inspect the transactional outbox; re-arm DEAD events.",
    subcommands = {OutboxCommand.ListEvents.class, OutboxCommand.Rearm.class})
final class OutboxCommand {

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Count and list events.")
  static final class ListEvents implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Option(
        names = "--state",
        defaultValue = "DEAD",
        description = "PENDING, DELIVERED or DEAD (default: ${DEFAULT-VALUE}).")
    OutboxState state;

    @Option(names = "--limit", defaultValue = "50", description = "At most this many rows.")
    int limit;

    @Override
    public Integer call() {
      try (JdbcLedgerStore store = database.open()) {
        Map<OutboxState, Long> counts = store.countEvents();
        System.out.println(
            "pending "
                + counts.get(OutboxState.PENDING)
                + ", delivered "
                + counts.get(OutboxState.DELIVERED)
                + ", dead "
                + counts.get(OutboxState.DEAD));
        System.out.printf(
            "%-36s %-8s %-8s %-20s %-24s %s%n",
            "ID", "STATE", "ATTEMPTS", "TOPIC", "CREATED", "LAST ERROR");
        for (OutboxEvent event : store.listEvents(state, limit)) {
          System.out.printf(
              "%-36s %-8s %-8d %-20s %-24s %s%n",
              event.id(),
              event.state(),
              event.attempts(),
              event.topic(),
              event.createdAt(),
              event.lastError().orElse(""));
        }
      }
      return 0;
    }
  }

  @Command(
      name = "rearm",
      mixinStandardHelpOptions = true,
      description = "Make a DEAD event due again, with its attempts reset.")
  static final class Rearm implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Parameters(paramLabel = "ID", description = "The event's id.")
    String id;

    @Override
    public Integer call() {
      try (JdbcLedgerStore store = database.open()) {
        if (store.rearm(id)) {
          System.out.println("re-armed " + id);
          return 0;
        }
        System.err.println("toolledger: no DEAD event has the id " + id);
        return 1;
      }
    }
  }
}
