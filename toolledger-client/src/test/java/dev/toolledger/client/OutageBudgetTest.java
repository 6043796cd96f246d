package dev.toolledger.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full outage must not multiply load: with the default policy, agents calling an endpoint that
 * accepts connections and closes them without answering cost at most the budget's spare tokens in
 * extra attempts, and every action stays Unknown with its key in the journal. (RetrierTest checks
 * the same bound for a thousand calls on fake time; this is the real client on real sockets.)
 */
class OutageBudgetTest {
  private static final int CALLS = 400;
  private static final int THREADS = 4;

  @TempDir Path dir;

  /** Accepts every connection and closes it at once: each HTTP attempt is one connection. */
  private static final class DeadServer implements AutoCloseable {
    final ServerSocket socket;
    final AtomicLong connections = new AtomicLong();
    final Thread acceptor;

    DeadServer() throws IOException {
      socket = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
      acceptor =
          new Thread(
              () -> {
                while (!socket.isClosed()) {
                  try (Socket s = socket.accept()) {
                    connections.incrementAndGet();
                  } catch (IOException e) {
                    // closed
                  }
                }
              },
              "dead-server");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  @Test
  void
      fourHundredActionsFromFourAgentsAgainstADeadServerCostAtMostTheBudgetInRetriesAndAllKeepTheirKeys()
          throws Exception {
    try (DeadServer dead = new DeadServer();
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"))) {
      RetryPolicy defaults = RetryPolicy.defaults();
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(dead.uri())
              .token("tl_000000000000_unused")
              .journal(journal)
              .retryPolicy(defaults)
              .build();

      ExecutorService agents = Executors.newFixedThreadPool(THREADS);
      List<Outcome> outcomes = new ArrayList<>();
      try {
        List<Future<Outcome>> calls = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
          int n = i;
          calls.add(
              agents.submit(
                  () ->
                      client.execute(
                          "outage",
                          "step-" + n,
                          "create-note",
                          Json.parse("{\"title\":\"n" + n + "\"}"))));
        }
        for (Future<Outcome> call : calls) {
          outcomes.add(call.get(120, TimeUnit.SECONDS));
        }
      } finally {
        agents.shutdownNow();
      }

      long spare = (long) Math.ceil(defaults.budgetTokens() - defaults.budgetFloor());
      assertThat(dead.connections.get())
          .as("attempts: one per call plus at most the budget's spare tokens")
          .isGreaterThan(CALLS)
          .isLessThanOrEqualTo(CALLS + spare);
      assertThat(outcomes).allMatch(o -> o instanceof Outcome.Unknown);
      assertThat(outcomes)
          .filteredOn(o -> ((Outcome.Unknown) o).reason().contains("retry budget exhausted"))
          .hasSizeGreaterThan(CALLS - (int) spare);
      Set<String> keys = new HashSet<>();
      outcomes.forEach(o -> keys.add(o.key().value()));
      assertThat(keys).hasSize(CALLS);
      List<JournalEntry> unfinished = journal.unfinished("outage");
      assertThat(unfinished).hasSize(CALLS);
      assertThat(unfinished).allMatch(e -> keys.contains(e.key().value()));
    }
  }
}
