package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every case of the seed article, over a real HTTP socket against a real database. Subclasses
 * supply the server: on a SQLite file, on a PostgreSQL schema.
 */
abstract class SeedScenariosHttpTest {
  private static final String NOTE = "{\"title\":\"Example note\"}";

  ServerFixture fixture;
  String acme;
  String globex;

  /** Starts the server this subclass tests. */
  abstract ServerFixture startServer();

  @BeforeEach
  void start() {
    fixture = startServer();
    acme = fixture.token("acme");
    globex = fixture.token("globex");
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void firstCallCreatesTheNoteAndSaysItWasNotReplayed() throws Exception {
    Reply reply = Http.createNote(fixture.uri(), acme, "op-1", NOTE);

    assertThat(reply.status()).isEqualTo(201);
    assertThat(reply.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(reply.header("Content-Type")).startsWith("application/json");
    assertThat(reply.json().get("title").asText()).isEqualTo("Example note");
    assertThat(reply.json().get("body").asText()).isEmpty();
    assertThat(reply.json().get("id").isIntegralNumber()).isTrue();
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void identicalRetryReplaysTheStoredResponseWithTheReplayedHeader() throws Exception {
    Reply first = Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    Reply retry = Http.createNote(fixture.uri(), acme, "op-1", NOTE);

    assertThat(retry.status()).isEqualTo(first.status());
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void responseLostAfterTheCommitIsRecoveredByRetryingWithTheSameKey() throws Exception {
    try (LossyProxy proxy =
        LossyProxy.start(fixture.uri(), DropPolicy.next(1, DropPolicy.posts()))) {
      assertThatThrownBy(() -> Http.createNote(proxy.uri(), acme, "op-lost", NOTE))
          .isInstanceOf(UncheckedIOException.class);
      assertThat(proxy.dropped()).isEqualTo(1);
      assertThat(fixture.notes())
          .as("the server committed before the response was lost")
          .isEqualTo(1);

      Reply retry = Http.createNote(proxy.uri(), acme, "op-lost", NOTE);

      assertThat(retry.status()).isEqualTo(201);
      assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(fixture.notes()).isEqualTo(1);
    }
  }

  @Test
  void failureBetweenTheEffectAndTheRecordRollsBothBack() throws Exception {
    fixture.failAfterEffect.set(true);
    Reply failed = Http.createNote(fixture.uri(), acme, "op-fail", "{\"title\":\"Rollback\"}");

    assertThat(failed.status()).isEqualTo(500);
    assertThat(failed.problemType()).isEqualTo("https://toolledger.dev/problems/tool-failed");
    assertThat(failed.header("Idempotent-Replayed")).isNull();
    assertThat(fixture.notes()).isZero();
    assertThat(fixture.operations()).isZero();

    fixture.failAfterEffect.set(false);
    Reply retry = Http.createNote(fixture.uri(), acme, "op-fail", "{\"title\":\"Rollback\"}");
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void sameKeyWithAChangedTitleIsRejectedAndExecutesNothing() throws Exception {
    Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    Reply changed = Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"Changed title\"}");

    assertThat(changed.status()).isEqualTo(422);
    assertThat(changed.header("Content-Type")).startsWith("application/problem+json");
    assertThat(changed.problemType())
        .isEqualTo("https://toolledger.dev/problems/idempotency-key-reused");
    assertThat(changed.body()).doesNotContain("Changed title").doesNotContain("Example note");
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void newKeyWithIdenticalContentCreatesASecondNote() throws Exception {
    Reply first = Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    Reply second = Http.createNote(fixture.uri(), acme, "op-2", NOTE);

    assertThat(second.status()).isEqualTo(201);
    assertThat(second.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(second.json().get("id")).isNotEqualTo(first.json().get("id"));
    assertThat(fixture.notes()).isEqualTo(2);
  }

  @Test
  void sameKeyInTwoTenantsNamesTwoOperations() throws Exception {
    Reply fromAcme = Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    Reply fromGlobex = Http.createNote(fixture.uri(), globex, "op-1", NOTE);

    assertThat(fromGlobex.status()).isEqualTo(201);
    assertThat(fromGlobex.header("Idempotent-Replayed")).isEqualTo("false");
    // Two notes, each the first of its tenant: ids are counted per tenant.
    assertThat(fromAcme.json().get("id").asLong()).isEqualTo(1);
    assertThat(fromGlobex.json().get("id").asLong()).isEqualTo(1);
    assertThat(Http.get(fixture.uri(), "/v1/notes", acme).json().get("notes")).hasSize(1);
    assertThat(Http.get(fixture.uri(), "/v1/notes", globex).json().get("notes")).hasSize(1);
    assertThat(fixture.notes()).isEqualTo(2);
  }

  @Test
  void noteIdsAreCountedPerTenantSoTheySayNothingAboutOtherTenants() {
    List<Long> acmeIds = new ArrayList<>();
    List<Long> globexIds = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      acmeIds.add(Http.createNote(fixture.uri(), acme, "a-" + i, NOTE).json().get("id").asLong());
      // Another tenant's activity between two of acme's notes leaves no gap in acme's ids.
      for (int j = 0; j < 3; j++) {
        globexIds.add(
            Http.createNote(fixture.uri(), globex, "g-" + i + "-" + j, NOTE)
                .json()
                .get("id")
                .asLong());
      }
    }

    assertThat(acmeIds).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(globexIds).hasSize(15).doesNotHaveDuplicates().allMatch(id -> id >= 1 && id <= 15);
    assertThat(pagedIds(acme, 2)).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(pagedIds(globex, 4)).hasSize(15).isSorted();
    // A replay still answers the id given the first time.
    assertThat(Http.createNote(fixture.uri(), acme, "a-2", NOTE).json().get("id").asLong())
        .isEqualTo(3);
  }

  /** Every note id of a tenant, read from GET /v1/notes a page of {@code limit} at a time. */
  private List<Long> pagedIds(String token, int limit) {
    List<Long> ids = new ArrayList<>();
    String after = "0";
    while (after != null) {
      JsonNode page =
          Http.get(fixture.uri(), "/v1/notes?limit=" + limit + "&after=" + after, token).json();
      assertThat(page.get("notes").size()).isLessThanOrEqualTo(limit);
      page.get("notes").forEach(note -> ids.add(note.get("id").asLong()));
      after = page.get("next").isNull() ? null : page.get("next").asText();
    }
    return ids;
  }

  @Test
  void concurrentNewNotesOfOneTenantGetDistinctConsecutiveIds() throws Exception {
    int clients = 16;
    CyclicBarrier barrier = new CyclicBarrier(clients);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<Reply>> replies = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        String key = "c-" + i;
        replies.add(
            pool.submit(
                () -> {
                  barrier.await();
                  return Http.createNote(fixture.uri(), acme, key, NOTE);
                }));
      }
      Set<Long> ids = new HashSet<>();
      for (Future<Reply> future : replies) {
        Reply reply = future.get(60, TimeUnit.SECONDS);
        assertThat(reply.status()).isEqualTo(201);
        ids.add(reply.json().get("id").asLong());
      }
      assertThat(ids).hasSize(clients).allMatch(id -> id >= 1 && id <= clients);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void replayWorksAfterARestartOnTheSameFile() throws Exception {
    Reply first = Http.createNote(fixture.uri(), acme, "op-1", NOTE);
    fixture.restart();

    Reply retry = Http.createNote(fixture.uri(), acme, "op-1", NOTE);

    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @Test
  void thirtyTwoConcurrentIdenticalRequestsMakeOneNoteAndThirtyTwoIdenticalAnswers()
      throws Exception {
    int clients = 32;
    CyclicBarrier barrier = new CyclicBarrier(clients);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<Reply>> replies = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        replies.add(
            pool.submit(
                () -> {
                  barrier.await();
                  return Http.createNote(fixture.uri(), acme, "op-race", NOTE);
                }));
      }
      Set<String> bodies = new HashSet<>();
      int fresh = 0;
      for (Future<Reply> future : replies) {
        Reply reply = future.get(60, TimeUnit.SECONDS);
        assertThat(reply.status()).isEqualTo(201);
        bodies.add(reply.body());
        if (reply.header("Idempotent-Replayed").equals("false")) {
          fresh++;
        }
      }
      assertThat(bodies).hasSize(1);
      assertThat(fresh).isEqualTo(1);
      assertThat(fixture.notes()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void lookupReturnsTheRecordedOutcome() {
    Reply created = Http.createNote(fixture.uri(), acme, "op-1", NOTE);

    Reply lookup = Http.get(fixture.uri(), "/v1/operations/op-1", acme);

    assertThat(lookup.status()).isEqualTo(200);
    var json = lookup.json();
    assertThat(json.get("key").asText()).isEqualTo("op-1");
    assertThat(json.get("tool").asText()).isEqualTo("create-note");
    assertThat(json.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(json.get("createdAt").asText()).isNotEmpty();
    assertThat(json.get("completedAt").asText()).isNotEmpty();
    assertThat(json.get("expiresAt").asText()).isNotEmpty();
    assertThat(json.get("response").get("status").asInt()).isEqualTo(201);
    assertThat(json.get("response").get("body")).isEqualTo(Json.parse(created.body()));
  }

  @Test
  void keyOfAnotherTenantLooksExactlyLikeAKeyNeverSeen() {
    Http.createNote(fixture.uri(), acme, "op-1", NOTE);

    Reply foreign = Http.get(fixture.uri(), "/v1/operations/op-1", globex);
    Reply unseen = Http.get(fixture.uri(), "/v1/operations/never-seen", globex);

    assertThat(foreign.status()).isEqualTo(404);
    assertThat(unseen.status()).isEqualTo(404);
    assertThat(foreign.body()).isEqualTo(unseen.body());
  }
}
