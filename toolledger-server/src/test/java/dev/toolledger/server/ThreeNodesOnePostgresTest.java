package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.Http.Reply;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Three stateless nodes, one PostgreSQL: the unique index decides, whichever node is asked. */
class ThreeNodesOnePostgresTest {
  private static final String NOTE = "{\"title\":\"shared\",\"body\":\"one intent, many nodes\"}";

  PostgresTestDatabase database;
  Cluster cluster;
  String token;

  @BeforeEach
  void start() {
    database = PostgresTestDatabase.create();
    cluster = Cluster.postgres(database, 3, UnaryOperator.identity());
    token = cluster.token("acme");
  }

  @AfterEach
  void stop() {
    cluster.close();
    database.close();
  }

  @Test
  void twoHundredFiftySixConcurrentIdenticalRequestsAcrossThreeNodesMakeOneNote() throws Exception {
    int requests = 256;
    CyclicBarrier barrier = new CyclicBarrier(requests);
    ExecutorService pool = Executors.newFixedThreadPool(requests);
    try {
      List<Future<List<Reply>>> futures = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        int node = i;
        futures.add(
            pool.submit(
                () -> {
                  barrier.await();
                  // A 409 in progress is an answer too; the client retries it with the same key
                  // and must then get the replay.
                  List<Reply> answers = new ArrayList<>();
                  for (int attempt = 0; attempt < 50; attempt++) {
                    Reply reply =
                        Http.createNote(cluster.node(node + attempt), token, "op-shared", NOTE);
                    answers.add(reply);
                    if (reply.status() != 409) {
                      break;
                    }
                    Thread.sleep(100);
                  }
                  return answers;
                }));
      }
      Set<String> bodies = new HashSet<>();
      int fresh = 0;
      for (Future<List<Reply>> future : futures) {
        List<Reply> answers = future.get(120, TimeUnit.SECONDS);
        for (Reply reply : answers.subList(0, answers.size() - 1)) {
          assertThat(reply.status()).isEqualTo(409);
          assertThat(reply.problemType())
              .isEqualTo("https://toolledger.dev/problems/operation-in-progress");
          assertThat(reply.header("Retry-After")).isNotNull();
        }
        Reply last = answers.get(answers.size() - 1);
        assertThat(last.status()).isEqualTo(201);
        bodies.add(last.body());
        if ("false".equals(last.header("Idempotent-Replayed"))) {
          fresh++;
        }
      }
      assertThat(fresh).isEqualTo(1);
      assertThat(bodies).hasSize(1);
      assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(1);
      assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void everyNodeReplaysWhatAnotherNodeExecuted() throws Exception {
    Reply first = Http.createNote(cluster.node(0), token, "op-1", NOTE);
    for (int node = 0; node < cluster.size(); node++) {
      Reply retry = Http.createNote(cluster.node(node), token, "op-1", NOTE);
      assertThat(retry.body()).isEqualTo(first.body());
      assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(Http.get(cluster.node(node), "/v1/operations/op-1", token).status())
          .isEqualTo(200);
    }
    assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isEqualTo(1);
  }
}
