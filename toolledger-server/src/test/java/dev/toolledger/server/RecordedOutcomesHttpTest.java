package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.server.Http.Reply;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Business errors are recorded outcomes; a locked database is a retryable 503 that leaves nothing.
 */
class RecordedOutcomesHttpTest {
  @TempDir Path dir;

  @Test
  void businessErrorIsRecordedAndReplayedLikeASuccess() throws Exception {
    try (ServerFixture fixture = ServerFixture.start(dir, 1, Duration.ofSeconds(5))) {
      String acme = fixture.token("acme");
      Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"first\"}");

      Reply refused = Http.createNote(fixture.uri(), acme, "op-2", "{\"title\":\"second\"}");
      Reply retry = Http.createNote(fixture.uri(), acme, "op-2", "{\"title\":\"second\"}");

      assertThat(refused.status()).isEqualTo(409);
      assertThat(refused.problemType()).isEqualTo(NotesTool.QUOTA_EXCEEDED);
      assertThat(refused.header("Idempotent-Replayed")).isEqualTo("false");
      assertThat(retry.status()).isEqualTo(409);
      assertThat(retry.body()).isEqualTo(refused.body());
      assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(fixture.notes()).isEqualTo(1);
      assertThat(Http.get(fixture.uri(), "/v1/operations/op-2", acme).json().get("state").asText())
          .isEqualTo("COMPLETED");
    }
  }

  @Test
  void writerThatCannotGetTheLockGets503WithRetryAfterAndLeavesNothing() throws Exception {
    try (ServerFixture fixture = ServerFixture.start(dir, Long.MAX_VALUE, Duration.ofMillis(200))) {
      String acme = fixture.token("acme");
      // Another process's writer: a separate connection holding SQLite's write lock.
      try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + fixture.database);
          Statement st = other.createStatement()) {
        st.execute("BEGIN IMMEDIATE");

        Reply reply = Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"blocked\"}");

        assertThat(reply.status()).isEqualTo(503);
        assertThat(reply.header("Retry-After")).isEqualTo("1");
        assertThat(reply.problemType()).isEqualTo("https://toolledger.dev/problems/ledger-busy");
        st.execute("ROLLBACK");
      }
      assertThat(fixture.notes()).isZero();
      assertThat(fixture.operations()).isZero();
      Reply retry = Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"blocked\"}");
      assertThat(retry.status()).isEqualTo(201);
      assertThat(retry.header("Idempotent-Replayed")).isEqualTo("false");
    }
  }
}
