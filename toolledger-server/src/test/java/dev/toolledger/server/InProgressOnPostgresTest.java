package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.Http.Reply;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A duplicate that arrives while the first request is still executing, on another node: it waits
 * for the first (bounded by the server's wait and by {@code Prefer: wait=N}) and gets the replay,
 * or hears 409 in progress with {@code Retry-After}; never a second effect, never a placeholder.
 */
class InProgressOnPostgresTest {
  PostgresTestDatabase database;
  Cluster cluster;
  SlowNotes slow;
  String token;

  @BeforeEach
  void start() {
    database = PostgresTestDatabase.create();
    slow = new SlowNotes();
    cluster = Cluster.postgres(database, 2, builder -> builder.tool(slow));
    token = cluster.token("acme");
  }

  @AfterEach
  void stop() {
    slow.release.countDown();
    cluster.close();
    database.close();
  }

  private CompletableFuture<Reply> firstRequest() throws Exception {
    CompletableFuture<Reply> first =
        CompletableFuture.supplyAsync(
            () ->
                Http.post(
                    cluster.node(0), "/v1/tools/slow-note", token, "op-1", "{\"title\":\"t\"}"));
    assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue();
    return first;
  }

  @Test
  void duplicatePastItsPreferredWaitHears409InProgressAndNothingExecutesTwice() throws Exception {
    CompletableFuture<Reply> first = firstRequest();

    Reply duplicate =
        Http.post(
            cluster.node(1),
            "/v1/tools/slow-note",
            token,
            "op-1",
            "{\"title\":\"t\"}",
            "Prefer",
            "wait=1");

    assertThat(duplicate.status()).isEqualTo(409);
    assertThat(duplicate.problemType())
        .isEqualTo("https://toolledger.dev/problems/operation-in-progress");
    assertThat(duplicate.header("Retry-After")).isEqualTo("1");
    assertThat(duplicate.header("Idempotent-Replayed")).isNull();
    slow.release.countDown();
    Reply original = first.get(30, TimeUnit.SECONDS);
    Reply retry =
        Http.post(cluster.node(1), "/v1/tools/slow-note", token, "op-1", "{\"title\":\"t\"}");
    assertThat(retry.body()).isEqualTo(original.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(1);
  }

  @Test
  void duplicateWithinItsWaitGetsTheReplayOnceTheFirstCommits() throws Exception {
    CompletableFuture<Reply> first = firstRequest();
    CompletableFuture<Reply> duplicate =
        CompletableFuture.supplyAsync(
            () ->
                Http.post(
                    cluster.node(1),
                    "/v1/tools/slow-note",
                    token,
                    "op-1",
                    "{\"title\":\"t\"}",
                    "Prefer",
                    "wait=30"));
    // The duplicate is parked on the unique index behind the first transaction: the server says
    // one of this cluster's backends waits for a lock.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (cluster.count(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND application_name = '"
                + Cluster.applicationName(database)
                + "'")
        == 0) {
      assertThat(System.nanoTime()).as("the duplicate never waited").isLessThan(deadline);
      Thread.sleep(20);
    }
    assertThat(duplicate).isNotDone();

    slow.release.countDown();

    Reply original = first.get(30, TimeUnit.SECONDS);
    Reply replay = duplicate.get(30, TimeUnit.SECONDS);
    assertThat(replay.status()).isEqualTo(201);
    assertThat(replay.body()).isEqualTo(original.body());
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(1);
  }
}
