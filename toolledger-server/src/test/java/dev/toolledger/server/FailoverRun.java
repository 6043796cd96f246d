package dev.toolledger.server;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.jdbc.testing.PgReplicaPair;
import dev.toolledger.jdbc.testing.PgReplicaPair.Replication;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * One failover under load: two nodes on the multi-host URL of a {@link PgReplicaPair}, clients
 * creating notes on them, the primary SIGKILLed mid-load and the standby promoted; then everything
 * the clients were told is checked against what the new primary holds.
 *
 * <p>Each client is a tenant of its own and creates notes one after the other, each under a new key
 * whose title is the key, and retries a key (same body, alternating nodes) after a 503, a 409 in
 * progress, a broken connection or no answer within {@link #CLIENT_TIMEOUT}, until it gets a 201,
 * as a client with a journal would. It retries after {@value #RETRY_PAUSE_MILLIS} ms instead of the
 * {@code Retry-After} second, so that the time until writes succeed again is measured to the tens
 * of milliseconds. A request left waiting by the dead primary outlives the client's timeout when
 * the promotion takes longer than it, so keys in flight at the kill are retried across the failover
 * while their first attempt may still be running on the server.
 */
final class FailoverRun {
  static final int CLIENTS = 6;
  static final long RETRY_PAUSE_MILLIS = 20;
  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);
  // Counted in acknowledged operations rather than in seconds, so that a slow machine gets the
  // same load as a fast one.
  private static final int ACKNOWLEDGED_BEFORE_KILL = 200;
  private static final int ACKNOWLEDGED_AFTER_RECOVERY = 100;
  private static final Duration LOAD_GIVES_UP = Duration.ofSeconds(60);
  private static final Duration KEY_GIVES_UP = Duration.ofSeconds(60);

  /** An answer that was neither a 201 nor one the client retries. */
  record Unexpected(String key, int status, String body) {}

  /** A key the client got a 201 for. */
  record Acknowledged(
      String tenant,
      String key,
      String body,
      String answer,
      int node,
      boolean replayed,
      long firstSentNanos,
      long sentNanos,
      long answeredNanos) {}

  /** What the clients saw and what the new primary holds. */
  record Outcome(
      Replication replication,
      int acknowledged,
      int acknowledgedBeforeKill,
      int inFlightAtKill,
      int retriedAcrossKill,
      int retriedAcrossKillReplayed,
      List<String> lost,
      List<String> duplicated,
      List<String> effectsWithoutAcknowledgement,
      List<String> answerNotTheRecordedNote,
      List<String> replayMismatches,
      List<String> reExecuted,
      List<Unexpected> unexpected,
      int busy,
      int inProgress,
      int brokenConnections,
      Duration promotion,
      Duration writesAgainAfterKill,
      Duration writesAgainAfterPromotion,
      Duration longestToAcknowledge,
      Set<Integer> nodesWritingAfterKill,
      String pools) {

    String summary() {
      return String.format(
          "%s: acknowledged %d (%d before the kill), %d keys in flight at the kill, %d retried"
              + " by their client across the failover (%d of them answered by a replay), lost %d,"
              + " duplicated %d, effects without acknowledgement %d, answer not the recorded note %d, replay mismatches %d, re-executed on replay %d,"
              + " unexpected answers %d; retried answers: 503 %d, 409 in progress %d, broken"
              + " connections or timeouts %d; promotion took %d ms, first new write %d ms after"
              + " the kill, %d ms after the promotion; longest wait for a 201 %d ms; pools after:"
              + " %s",
          replication,
          acknowledged,
          acknowledgedBeforeKill,
          inFlightAtKill,
          retriedAcrossKill,
          retriedAcrossKillReplayed,
          lost.size(),
          duplicated.size(),
          effectsWithoutAcknowledgement.size(),
          answerNotTheRecordedNote.size(),
          replayMismatches.size(),
          reExecuted.size(),
          unexpected.size(),
          busy,
          inProgress,
          brokenConnections,
          promotion.toMillis(),
          writesAgainAfterKill.toMillis(),
          writesAgainAfterPromotion.toMillis(),
          longestToAcknowledge.toMillis(),
          pools);
    }
  }

  private final PgReplicaPair pair;
  private final Cluster cluster;
  private final List<String> tokens = new ArrayList<>();
  private final ConcurrentLinkedQueue<Acknowledged> acknowledged = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Unexpected> unexpected = new ConcurrentLinkedQueue<>();
  private final AtomicInteger busy = new AtomicInteger();
  private final AtomicInteger inProgress = new AtomicInteger();
  private final AtomicInteger broken = new AtomicInteger();
  private volatile boolean stopping;
  private volatile long killedAt = Long.MAX_VALUE;

  private FailoverRun(PgReplicaPair pair, Cluster cluster) {
    this.pair = pair;
    this.cluster = cluster;
    for (int i = 0; i < CLIENTS; i++) {
      tokens.add(cluster.token(tenant(i)));
    }
  }

  /**
   * Starts the servers and nodes, runs the failover with the standby promoted {@code
   * promotionDelay} after the kill, checks, and stops everything.
   */
  static Outcome run(Replication replication, Duration promotionDelay) throws Exception {
    try (PgReplicaPair pair = PgReplicaPair.start(replication);
        Cluster cluster =
            Cluster.postgres(
                pair.url() + "&ApplicationName=toolledger-failover", 2, UnaryOperator.identity())) {
      return new FailoverRun(pair, cluster).failOver(promotionDelay);
    }
  }

  private static String tenant(int client) {
    return "client-" + client;
  }

  private Outcome failOver(Duration promotionDelay) throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        int client = i;
        running.add(clients.submit(() -> createNotes(client)));
      }
      awaitAcknowledged(ACKNOWLEDGED_BEFORE_KILL);
      long killStarted = System.nanoTime();
      pair.killPrimary();
      // From here the old primary can commit nothing; a request sent earlier may still have.
      killedAt = System.nanoTime();
      Thread.sleep(promotionDelay.toMillis());
      Duration promotion = pair.promoteStandby();
      long promoted = System.nanoTime();
      long deadline = System.nanoTime() + LOAD_GIVES_UP.toNanos();
      while (firstWriteAfterKill() == null && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      awaitAcknowledged(acknowledged.size() + ACKNOWLEDGED_AFTER_RECOVERY);
      stopping = true;
      for (Future<?> client : running) {
        client.get(2 * KEY_GIVES_UP.toSeconds(), TimeUnit.SECONDS);
      }
      Acknowledged first = firstWriteAfterKill();
      long answered = first == null ? Long.MAX_VALUE : first.answeredNanos();
      return check(
          promotion,
          Duration.ofNanos(answered - killStarted),
          Duration.ofNanos(answered - promoted),
          clients);
    } finally {
      stopping = true;
      clients.shutdownNow();
    }
  }

  private void awaitAcknowledged(int count) throws InterruptedException {
    long deadline = System.nanoTime() + LOAD_GIVES_UP.toNanos();
    while (acknowledged.size() < count && unexpected.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  /** The first answer to a request sent after the primary died that executed something new. */
  private Acknowledged firstWriteAfterKill() {
    Acknowledged first = null;
    for (Acknowledged a : acknowledged) {
      if (a.sentNanos() > killedAt
          && !a.replayed()
          && (first == null || a.answeredNanos() < first.answeredNanos())) {
        first = a;
      }
    }
    return first;
  }

  private void createNotes(int client) {
    String tenant = tenant(client);
    for (int n = 0; !stopping; n++) {
      String key = tenant + "-" + n;
      String body = "{\"title\":\"" + key + "\",\"body\":\"note " + n + " of " + tenant + "\"}";
      if (!settle(client, key, body)) {
        return;
      }
    }
  }

  /** Sends one key until it is acknowledged; false when the answer was one not to retry. */
  private boolean settle(int client, String key, String body) {
    long first = System.nanoTime();
    long givesUp = first + KEY_GIVES_UP.toNanos();
    for (int attempt = 0; System.nanoTime() < givesUp; attempt++) {
      int node = (client + attempt) % 2;
      long sent = System.nanoTime();
      Reply reply;
      try {
        reply =
            Http.send(
                HttpRequest.newBuilder(cluster.node(node).resolve("/v1/tools/create-note"))
                    .timeout(CLIENT_TIMEOUT)
                    .header("Authorization", "Bearer " + tokens.get(client))
                    .header("Idempotency-Key", key)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build());
      } catch (UncheckedIOException e) {
        broken.incrementAndGet();
        pause();
        continue;
      }
      if (reply.status() == 201) {
        acknowledged.add(
            new Acknowledged(
                tenant(client),
                key,
                body,
                reply.body(),
                node,
                "true".equals(reply.header("Idempotent-Replayed")),
                first,
                sent,
                System.nanoTime()));
        return true;
      }
      if (reply.status() == 503) {
        busy.incrementAndGet();
      } else if (reply.status() == 409
          && "https://toolledger.dev/problems/operation-in-progress".equals(reply.problemType())) {
        inProgress.incrementAndGet();
      } else {
        unexpected.add(new Unexpected(key, reply.status(), reply.body()));
        return false;
      }
      pause();
    }
    unexpected.add(new Unexpected(key, 0, "no 201 within " + KEY_GIVES_UP));
    return false;
  }

  private static void pause() {
    try {
      Thread.sleep(RETRY_PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // ------------------------------------------------------------------ checks

  /** A note on the new primary: how many rows have this title, and the number of one of them. */
  private record Note(int copies, long number) {}

  private Outcome check(
      Duration promotion,
      Duration writesAgainAfterKill,
      Duration writesAgainAfterPromotion,
      ExecutorService threads)
      throws Exception {
    // Read before the replays below, which would re-create a lost note.
    Map<String, Note> notes = notesOnNewPrimary();
    List<Acknowledged> acks = new ArrayList<>(acknowledged);
    List<String> lost = new ArrayList<>();
    List<String> wrongNote = new ArrayList<>();
    Map<String, Acknowledged> byKey = new HashMap<>();
    int beforeKill = 0;
    int spanning = 0;
    int retried = 0;
    int retriedReplayed = 0;
    long longest = 0;
    Set<Integer> writingAfterKill = new TreeSet<>();
    for (Acknowledged a : acks) {
      if (a.sentNanos() > killedAt && !a.replayed()) {
        writingAfterKill.add(a.node());
      }
      byKey.put(a.tenant() + "/" + a.key(), a);
      if (a.answeredNanos() < killedAt) {
        beforeKill++;
      } else if (a.firstSentNanos() < killedAt) {
        spanning++;
        if (a.sentNanos() > killedAt) {
          retried++;
          retriedReplayed += a.replayed() ? 1 : 0;
        }
      }
      longest = Math.max(longest, a.answeredNanos() - a.firstSentNanos());
      Note note = notes.get(a.tenant() + "/" + a.key());
      if (note == null) {
        lost.add(a.key());
      } else if (note.number() != Json.parse(a.answer()).path("id").asLong()) {
        wrongNote.add(a.key());
      }
    }
    List<String> duplicated = new ArrayList<>();
    List<String> withoutAck = new ArrayList<>();
    notes.forEach(
        (key, note) -> {
          if (note.copies() > 1) {
            duplicated.add(key);
          }
          if (!byKey.containsKey(key)) {
            withoutAck.add(key);
          }
        });
    List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
    List<String> reExecuted = Collections.synchronizedList(new ArrayList<>());
    replayEverything(acks, mismatches, reExecuted, threads);
    return new Outcome(
        pair.replication(),
        acks.size(),
        beforeKill,
        spanning,
        retried,
        retriedReplayed,
        lost,
        duplicated,
        withoutAck,
        wrongNote,
        mismatches,
        reExecuted,
        List.copyOf(unexpected),
        busy.get(),
        inProgress.get(),
        broken.get(),
        promotion,
        writesAgainAfterKill,
        writesAgainAfterPromotion,
        Duration.ofNanos(longest),
        writingAfterKill,
        pools());
  }

  private Map<String, Note> notesOnNewPrimary() throws SQLException {
    Map<String, Note> notes = new HashMap<>();
    try (Connection c = DriverManager.getConnection(pair.standbyUrl());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT tenant, title, COUNT(*), MIN(number) FROM notes GROUP BY tenant, title");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        notes.put(rs.getString(1) + "/" + rs.getString(2), new Note(rs.getInt(3), rs.getLong(4)));
      }
    }
    return notes;
  }

  /**
   * Sends every acknowledged key again, to the node that did not answer it: the answer must be the
   * recorded one, byte for byte, marked as a replay.
   */
  private void replayEverything(
      List<Acknowledged> acks,
      List<String> mismatches,
      List<String> reExecuted,
      ExecutorService threads)
      throws Exception {
    List<Future<?>> parts = new ArrayList<>();
    for (int t = 0; t < CLIENTS; t++) {
      int part = t;
      parts.add(
          threads.submit(
              () -> {
                for (int i = part; i < acks.size(); i += CLIENTS) {
                  Acknowledged a = acks.get(i);
                  int client = Integer.parseInt(a.tenant().substring("client-".length()));
                  Reply replay =
                      Http.createNote(
                          cluster.node(a.node() + 1), tokens.get(client), a.key(), a.body());
                  if (replay.status() == 201
                      && !"true".equals(replay.header("Idempotent-Replayed"))) {
                    reExecuted.add(a.key());
                  } else if (replay.status() != 201 || !replay.body().equals(a.answer())) {
                    mismatches.add(a.key() + " -> " + replay.status() + " " + replay.body());
                  }
                }
              }));
    }
    for (Future<?> part : parts) {
      part.get(120, TimeUnit.SECONDS);
    }
  }

  /**
   * Each node's pool as Hikari counts it, against the connections the new primary sees: a pool that
   * still counted connections to the dead primary would show more than the server.
   */
  private String pools() throws SQLException {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 2; i++) {
      var pool =
          cluster.app(i).store().dataSource() instanceof HikariDataSource hikari
              ? hikari.getHikariPoolMXBean()
              : null;
      if (pool != null) {
        out.append("node-")
            .append(i + 1)
            .append(" total ")
            .append(pool.getTotalConnections())
            .append(", ");
      }
    }
    try (Connection c = DriverManager.getConnection(pair.standbyUrl());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?")) {
      ps.setString(1, "toolledger-failover");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        out.append("on the new primary ").append(rs.getLong(1));
      }
    }
    return out.toString();
  }
}
