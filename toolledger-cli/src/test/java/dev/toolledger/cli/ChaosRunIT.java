package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.Outcome;
import dev.toolledger.client.ResumedAction;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.jdbc.testing.PgReplicaPair;
import dev.toolledger.jdbc.testing.PgReplicaPair.Replication;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import dev.toolledger.testkit.history.History;
import dev.toolledger.testkit.history.Verdict;
import dev.toolledger.testkit.pg.PgFaultPoint;
import dev.toolledger.testkit.pg.PgFaultProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded chaos run with real processes: packaged nodes on one ledger, each behind a proxy that
 * loses answers, and clients that create notes through the Java client with their own journals,
 * retrying and resuming with the same keys. Meanwhile nodes are killed with SIGKILL and restarted
 * and, on PostgreSQL, the link between the nodes and the database is reset, refused and stalled.
 * Afterwards every key left open is resumed, and the {@code HistoryChecker} reads the whole history
 * against the database.
 *
 * <p>The ledger: PostgreSQL when {@code TOOLLEDGER_TEST_PG_URL} is set: a primary with a
 * synchronous standby of its own ({@code PgReplicaPair}, started from the machine's PostgreSQL
 * binaries, not the server that URL names), two nodes on the multi-host URL, the link faults, and
 * one failover halfway (the primary SIGKILLed, the standby promoted). Otherwise one node on a
 * SQLite file (SQLite is a single-node ledger; no link to break, no standby).
 *
 * <p>Size: {@code -Dtoolledger.chaos.seconds=N} of faults (default 15, the short run of the normal
 * build; {@code -Pchaos} runs 540). {@code -Dtoolledger.chaos.seed=S} replays a schedule.
 */
class ChaosRunIT {
  private static final Duration RUN =
      Duration.ofSeconds(Long.getLong("toolledger.chaos.seconds", 15));
  private static final long SEED = Long.getLong("toolledger.chaos.seed", 20261204);
  private static final int CLIENTS = Integer.getInteger("toolledger.chaos.clients", 3);

  /**
   * A client's pause between two actions: keeps the short run's key count, and its audit, small.
   */
  private static final Duration PAUSE = Duration.ofMillis(40);

  private static final double LOST_ANSWERS = 0.05;

  /** The longest any request may wait for its answer; a client's attempt gives up later. */
  private static final Duration BOUND = Duration.ofSeconds(10);

  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(15);
  private static final String TENANT = "chaos";

  /** The kinds of fault the run injects, for the report. */
  enum Fault {
    NODE_KILL,
    LOST_ANSWER,
    LINK_RESET,
    LINK_REFUSED,
    LINK_STALL,
    /** A PostgreSQL failover: only on a ledger with a standby (see {@link Ledger#failover}). */
    FAILOVER
  }

  @TempDir Path dir;

  /** Every node started, so that none outlives a failed run. */
  private final List<Node> nodes = new ArrayList<>();

  @AfterEach
  void stopNodes() throws InterruptedException {
    for (Node node : nodes) {
      node.signalStop();
    }
    for (Node node : nodes) {
      node.awaitStop();
    }
  }

  @Test
  void underKillsLostAnswersAndLinkFaultsNothingAcknowledgedIsLostAndNoKeyActsTwice()
      throws Exception {
    String pgUrl = System.getenv("TOOLLEDGER_TEST_PG_URL");
    try (Ledger ledger = pgUrl == null ? Ledger.sqlite(dir) : Ledger.replicated()) {
      run(ledger);
    }
  }

  private void run(Ledger ledger) throws Exception {
    SplittableRandom random = new SplittableRandom(SEED);
    Map<Fault, AtomicLong> faults = new EnumMap<>(Fault.class);
    for (Fault f : Fault.values()) {
      faults.put(f, new AtomicLong());
    }
    long t0 = System.nanoTime();
    for (int i = 0; i < ledger.nodes(); i++) {
      nodes.add(new Node(dir.resolve("node-" + i + ".err"), ledger.nodeUrl(), SEED + i));
    }
    // The first node migrates the ledger; the others and the token's process start beside it.
    nodes.get(0).launch();
    nodes.get(0).awaitServing();
    for (Node node : nodes.subList(1, nodes.size())) {
      node.launch();
    }
    String token = PackagedJar.token(ledger.nodeUrl(), TENANT);
    for (Node node : nodes.subList(1, nodes.size())) {
      node.awaitServing();
    }
    long setupMillis = (System.nanoTime() - t0) / 1_000_000;
    History history = new History();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    List<ActionJournal> journals = new ArrayList<>();
    List<ToolLedgerClient> clients = new ArrayList<>();
    Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
    Instant started = Instant.now();
    long settleMillis = 0;
    long failoverMillis = -1;
    // When the failover ended, and the first answer a client was given after it: that the nodes
    // write again on the promoted standby, without a restart, is what the failover tests.
    AtomicLong promotedAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong firstAnswerAfterPromotion = new AtomicLong(Long.MAX_VALUE);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal-" + c + ".db"));
        journals.add(journal);
        ToolLedgerClient client =
            ToolLedgerClient.builder()
                .baseUri(nodes.get(c % nodes.size()).proxy.uri())
                .token(token)
                .journal(journal)
                .httpClient(RecordingHttpClient.over(history, Duration.ofSeconds(2)))
                .attemptTimeout(ATTEMPT_TIMEOUT)
                .retryPolicy(
                    RetryPolicy.builder()
                        .maxAttempts(12)
                        .deadline(Duration.ofSeconds(60))
                        .backoff(Duration.ofMillis(100), Duration.ofSeconds(2))
                        .budget(100_000, 10, 0.1)
                        .build())
                .build();
        clients.add(client);
        String workflow = "client-" + c;
        running.add(
            pool.submit(
                () -> {
                  for (int step = 0; !stop.get(); step++) {
                    Outcome outcome =
                        client.execute(
                            workflow,
                            "step-" + step,
                            "create-note",
                            Json.parse("{\"title\":\"" + workflow + "/" + step + "\"}"));
                    String kind = outcome.getClass().getSimpleName();
                    outcomes.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                    long now = System.nanoTime();
                    if (kind.equals("Completed") && now > promotedAt.get()) {
                      firstAnswerAfterPromotion.compareAndSet(Long.MAX_VALUE, now);
                    }
                    Thread.sleep(PAUSE.toMillis());
                  }
                  return null;
                }));
      }

      Instant end = started.plus(RUN);
      Instant halfway = started.plus(RUN.dividedBy(2));
      boolean failedOver = false;
      for (int n = 0; Instant.now().isBefore(end); n++) {
        Thread.sleep(500 + random.nextInt(1_000));
        if (!failedOver && Instant.now().isAfter(halfway)) {
          failedOver = true;
          long failoverStart = System.nanoTime();
          if (ledger.failover()) {
            faults.get(Fault.FAILOVER).incrementAndGet();
            promotedAt.set(System.nanoTime());
            failoverMillis = (promotedAt.get() - failoverStart) / 1_000_000;
          }
        }
        injectOne(n, random, nodes, ledger, faults);
      }
      ledger.heal();
      stop.set(true);
      t0 = System.nanoTime();
      for (Future<?> client : running) {
        client.get(120, TimeUnit.SECONDS);
      }
      settleMillis = (System.nanoTime() - t0) / 1_000_000;
      // The clients' own way out of "unknown": resume each workflow with its journaled keys.
      for (int c = 0; c < CLIENTS; c++) {
        for (ResumedAction resumed : clients.get(c).resume("client-" + c)) {
          outcomes
              .computeIfAbsent(
                  "resumed-" + resumed.outcome().getClass().getSimpleName(), k -> new AtomicLong())
              .incrementAndGet();
        }
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
      for (ActionJournal journal : journals) {
        journal.close();
      }
    }
    long lostAnswers = nodes.stream().mapToLong(n -> n.proxy.dropped()).sum();
    faults.get(Fault.LOST_ANSWER).set(lostAnswers);
    Verdict verdict;
    t0 = System.nanoTime();
    try {
      verdict =
          HistoryAudit.audit(
              history, nodes.get(0).direct(), token, ledger.readUrl(), TENANT, BOUND);
    } finally {
      for (Node node : nodes) {
        node.signalStop();
      }
      for (Node node : nodes) {
        node.awaitStop();
      }
    }
    long auditMillis = (System.nanoTime() - t0) / 1_000_000;
    String report =
        "chaos run: "
            + RUN.toSeconds()
            + " s of faults, seed "
            + SEED
            + ", "
            + ledger.describe()
            + ", "
            + nodes.size()
            + " node(s), "
            + CLIENTS
            + " clients; faults "
            + faults
            + "; outcomes "
            + outcomes
            + "; "
            + verdict.figures()
            + "; setup "
            + setupMillis
            + " ms, clients settled in "
            + settleMillis
            + " ms, audit "
            + auditMillis
            + " ms"
            + (failoverMillis < 0
                ? ""
                : ", failover (kill + promotion) "
                    + failoverMillis
                    + " ms, first answer "
                    + (firstAnswerAfterPromotion.get() == Long.MAX_VALUE
                        ? "never"
                        : (firstAnswerAfterPromotion.get() - promotedAt.get()) / 1_000_000 + " ms")
                    + " after the promotion");
    System.out.println(report);
    Files.writeString(Path.of("target", "chaos-run.txt"), report + "\n");
    verdict.assertHolds();
    assertThat(faults.get(Fault.NODE_KILL).get()).as("nodes were killed").isPositive();
    assertThat(lostAnswers).as("answers were lost").isPositive();
    assertThat(verdict.acknowledged()).as("keys were acknowledged").isPositive();
    if (ledger.links() != null) {
      assertThat(faults.get(Fault.FAILOVER).get()).as("the primary failed over").isEqualTo(1);
      assertThat(firstAnswerAfterPromotion.get())
          .as("the nodes answered writes on the promoted standby")
          .isNotEqualTo(Long.MAX_VALUE);
    }
  }

  /**
   * The {@code n}th fault: the kinds the ledger allows take turns, so that even the short run meets
   * each; where and for how long is drawn from the seeded random.
   */
  private static void injectOne(
      int n,
      SplittableRandom random,
      List<Node> nodes,
      Ledger ledger,
      Map<Fault, AtomicLong> faults)
      throws Exception {
    Links links = ledger.links();
    int turn = links == null ? 0 : n % 4;
    switch (turn) {
      case 0 -> {
        Node victim = nodes.get(random.nextInt(nodes.size()));
        victim.kill();
        faults.get(Fault.NODE_KILL).incrementAndGet();
        victim.restart();
      }
      case 1 -> {
        PgFaultPoint point = PgFaultPoint.values()[random.nextInt(PgFaultPoint.values().length)];
        links.resetNext(point);
        faults.get(Fault.LINK_RESET).incrementAndGet();
      }
      case 2 -> {
        links.refuseNewAndResetAll();
        faults.get(Fault.LINK_REFUSED).incrementAndGet();
        Thread.sleep(300 + random.nextInt(700));
        links.heal();
      }
      default -> {
        links.stall(Duration.ofMillis(500 + random.nextInt(2_500)));
        faults.get(Fault.LINK_STALL).incrementAndGet();
      }
    }
  }

  /**
   * The links from the nodes to the database servers: one proxy in front of each server of the
   * multi-host URL, so that whichever server is the primary, its link is the one that breaks. A
   * fault goes to every proxy; the one in front of a server the nodes do not write to sees little.
   */
  private record Links(List<PgFaultProxy> proxies) {
    void resetNext(PgFaultPoint point) {
      proxies.forEach(p -> p.resetNext(point));
    }

    void refuseNewAndResetAll() {
      proxies.forEach(p -> p.refuseNew(true).resetAll());
    }

    void stall(Duration duration) {
      proxies.forEach(p -> p.stall(duration));
    }

    void heal() {
      proxies.forEach(PgFaultProxy::heal);
    }

    void close() {
      proxies.forEach(PgFaultProxy::close);
    }
  }

  /** The shared ledger: its URL for the nodes (through the link proxies) and for the audit. */
  private interface Ledger extends AutoCloseable {
    String nodeUrl();

    String readUrl();

    int nodes();

    /** The proxies on the links to the database, or null when there is no link (SQLite). */
    Links links();

    String describe();

    /**
     * Kills the database's primary and promotes its synchronous standby; false when the ledger has
     * no standby (SQLite). The nodes follow on their multi-host URL, without a restart.
     */
    default boolean failover() {
      return false;
    }

    default void heal() {
      if (links() != null) {
        links().heal();
      }
    }

    @Override
    void close() throws Exception;

    static Ledger sqlite(Path dir) {
      Path file = dir.resolve("ledger.db");
      return new Ledger() {
        public String nodeUrl() {
          return file.toString();
        }

        public String readUrl() {
          return "jdbc:sqlite:" + file;
        }

        public int nodes() {
          return 1;
        }

        public Links links() {
          return null;
        }

        public String describe() {
          return "SQLite";
        }

        public void close() {}
      };
    }

    /**
     * A primary and its synchronous standby in temporary directories, each behind its own link
     * proxy; the nodes' URL names both proxies, with {@code targetServerType=primary}, so that
     * PgJDBC finds whichever server accepts writes. The audit reads the servers directly.
     */
    static Ledger replicated() {
      PgReplicaPair pair = PgReplicaPair.start(Replication.SYNCHRONOUS);
      PgFaultProxy toPrimary = PgFaultProxy.inFrontOf(pair.primaryUrl());
      PgFaultProxy toStandby = PgFaultProxy.inFrontOf(pair.standbyUrl());
      Links links = new Links(List.of(toPrimary, toStandby));
      String nodeUrl =
          "jdbc:postgresql://127.0.0.1:"
              + toPrimary.port()
              + ",127.0.0.1:"
              + toStandby.port()
              + "/postgres?user=postgres&targetServerType=primary";
      return new Ledger() {
        public String nodeUrl() {
          return nodeUrl;
        }

        public String readUrl() {
          return pair.url();
        }

        public int nodes() {
          return 2;
        }

        public Links links() {
          return links;
        }

        public String describe() {
          return "PostgreSQL primary + synchronous standby";
        }

        public boolean failover() {
          pair.killPrimary();
          pair.promoteStandby();
          return true;
        }

        public void close() {
          links.close();
          pair.close();
        }
      };
    }
  }

  /** A packaged node on a fixed port, so that it comes back where its proxy forwards. */
  private static final class Node {
    private final Path stderr;
    private final String db;
    private final int port;
    private final LossyProxy proxy;
    private Process process;

    private Node(Path stderr, String db, int port, long seed) {
      this.stderr = stderr;
      this.db = db;
      this.port = port;
      this.proxy =
          LossyProxy.start(
              URI.create("http://127.0.0.1:" + port),
              DropPolicy.fraction(LOST_ANSWERS, seed, DropPolicy.posts()));
    }

    Node(Path stderr, String db, long seed) throws IOException {
      this(stderr, db, freePort(), seed);
    }

    private static int freePort() throws IOException {
      try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      }
    }

    URI direct() {
      return URI.create("http://127.0.0.1:" + port);
    }

    void restart() throws IOException {
      launch();
      awaitServing();
    }

    void awaitServing() throws IOException {
      PackagedJar.servingUri(process);
    }

    void launch() throws IOException {
      process =
          new ProcessBuilder(
                  PackagedJar.java(),
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-jar",
                  PackagedJar.JAR.toString(),
                  "serve",
                  "--port",
                  Integer.toString(port),
                  "--db",
                  db)
              .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
              .start();
    }

    void kill() throws InterruptedException {
      process.destroyForcibly(); // SIGKILL, wherever the node is
      process.waitFor(30, TimeUnit.SECONDS);
    }

    void signalStop() {
      proxy.close();
      if (process != null) {
        process.toHandle().destroy(); // SIGTERM
      }
    }

    void awaitStop() throws InterruptedException {
      if (process != null && !process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
