package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A history test: thousands of requests over a few hundred keys from many threads and every node,
 * mixing identical retries, conflicting retries and new keys with content identical to other keys'.
 * Every request and answer is recorded; a checker then holds the history against the database, per
 * key. Subclasses supply the cluster.
 */
abstract class HistoryCheckTest {
  static final int KEYS = 200;
  static final int REQUESTS = 3000;
  static final int THREADS = 16;
  static final String[] TITLES = {
    "Buy milk", "Call Ann", "Book flights", "Renew passport", "Water plants", "Pay rent"
  };

  /** One request and what came back. */
  record Event(String key, String title, int status, String body, String replayed, String type) {}

  abstract Cluster cluster();

  @Test
  void everyKeyHasAtMostOneEffectAndEverySuccessAnswerIsThatEffect() throws Exception {
    Cluster cluster = cluster();
    String token = cluster.token("acme");
    ConcurrentLinkedQueue<Event> history = new ConcurrentLinkedQueue<>();
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger freshKeys = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch done = new CountDownLatch(THREADS);
    for (int t = 0; t < THREADS; t++) {
      long seed = 1000 + t;
      pool.execute(
          () -> {
            try {
              SplittableRandom random = new SplittableRandom(seed);
              while (sent.incrementAndGet() <= REQUESTS) {
                int slot = random.nextInt(KEYS);
                String key = "key-" + slot;
                String title = TITLES[slot % TITLES.length];
                int action = random.nextInt(100);
                if (action < 15) {
                  // A conflicting retry: same key, other parameters.
                  title = title + " (edited)";
                } else if (action < 30) {
                  // A new action whose content equals an existing key's: a new key.
                  key = "new-" + freshKeys.incrementAndGet();
                }
                Reply reply =
                    Http.createNote(
                        cluster.node(random.nextInt(cluster.size())),
                        token,
                        key,
                        "{\"title\":\"" + title + "\"}");
                String type = reply.status() >= 400 ? reply.problemType() : null;
                history.add(
                    new Event(
                        key,
                        title,
                        reply.status(),
                        reply.body(),
                        reply.header("Idempotent-Replayed"),
                        type));
              }
            } finally {
              done.countDown();
            }
          });
    }
    assertThat(done.await(10, TimeUnit.MINUTES)).isTrue();
    pool.shutdownNow();

    check(cluster, new ArrayList<>(history));
  }

  private static void check(Cluster cluster, List<Event> history) throws Exception {
    assertThat(history).hasSize(REQUESTS);
    Map<Long, String> notes = new HashMap<>();
    Map<String, JsonNode> operations = new HashMap<>();
    try (Connection c = cluster.store().dataSource().getConnection();
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT id, title FROM notes")) {
        while (rs.next()) {
          notes.put(rs.getLong(1), rs.getString(2));
        }
      }
      try (ResultSet rs =
          st.executeQuery("SELECT op_key, state, response_body FROM tl_operations")) {
        while (rs.next()) {
          assertThat(rs.getString(2)).as("state of %s", rs.getString(1)).isEqualTo("COMPLETED");
          operations.put(rs.getString(1), Json.parse(rs.getString(3)));
        }
      }
    }

    // At most one effect per key, and no effect without its record: the notes are exactly the
    // notes that the operation records point at, each pointed at once.
    Set<Long> referenced = new HashSet<>();
    for (JsonNode body : operations.values()) {
      assertThat(referenced.add(body.get("id").asLong())).as("a note claimed twice").isTrue();
    }
    assertThat(notes.keySet()).isEqualTo(referenced);

    Map<String, List<Event>> byKey = new HashMap<>();
    for (Event event : history) {
      byKey.computeIfAbsent(event.key(), k -> new ArrayList<>()).add(event);
    }
    int successes = 0;
    int conflicts = 0;
    for (Map.Entry<String, List<Event>> entry : byKey.entrySet()) {
      String key = entry.getKey();
      List<Event> events = entry.getValue();
      Set<String> successBodies = new HashSet<>();
      Set<String> successTitles = new HashSet<>();
      int executed = 0;
      for (Event event : events) {
        if (event.status() == 201) {
          successBodies.add(event.body());
          successTitles.add(event.title());
          if ("false".equals(event.replayed())) {
            executed++;
          }
        } else {
          assertThat(event.status()).as("answer for %s", key).isIn(409, 422, 503);
        }
      }
      // Every success answer for the key is identical, and exactly one of them executed.
      assertThat(successBodies).as("success bodies of %s", key).hasSizeLessThanOrEqualTo(1);
      if (!successBodies.isEmpty()) {
        successes++;
        assertThat(executed).as("fresh executions of %s", key).isEqualTo(1);
        // An effect exists for a key that had a success answer, and it is that answer's effect.
        JsonNode answered = Json.parse(successBodies.iterator().next());
        assertThat(operations.get(key)).as("record of %s", key).isEqualTo(answered);
        assertThat(notes.get(answered.get("id").asLong()))
            .isEqualTo(successTitles.iterator().next());
      }
      for (Event event : events) {
        if (event.status() == 422) {
          conflicts++;
          assertThat(event.type()).endsWith("/idempotency-key-reused");
          // A conflict answer never has an effect: the key's one effect is the other intent.
          assertThat(successTitles).doesNotContain(event.title());
          if (operations.containsKey(key)) {
            long noteId = operations.get(key).get("id").asLong();
            assertThat(notes.get(noteId)).isNotEqualTo(event.title());
          }
        }
      }
    }
    assertThat(successes).as("keys with a success").isGreaterThan(KEYS / 2);
    assertThat(conflicts).as("conflict answers seen").isGreaterThan(0);
  }
}
