package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.testing.ImmutableFiles;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import dev.toolledger.server.Http.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storage fault under a running server: callers hear the ledger's own 503, not that their tool
 * failed; /health says the node cannot write; both recover without a restart once the storage does.
 * The faults are real: {@code chattr +i} on the SQLite file and its WAL (SQLITE_IOERR_WRITE on the
 * open connection, SQLITE_READONLY on connections opened during the fault), and the file moved away
 * (the store refuses to write into a file that is no longer at its path, and no new connection
 * creates an empty one: SQLITE_CANTOPEN).
 */
class StorageFaultHttpTest {
  private static final String TYPE = "https://toolledger.dev/problems/";
  private static final Duration RECOVERY = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void unwritableLedgerIsLedgerUnavailableAndTheNodeRecoversWithoutRestart() throws Exception {
    try (ServerFixture fixture = ServerFixture.start(dir)) {
      String acme = fixture.token("acme");
      assertThat(note(fixture, acme, "n-1").status()).isEqualTo(201);
      Path wal = Path.of(fixture.database + "-wal");
      ImmutableFiles.makeImmutableOrSkip(fixture.database, wal);
      try {
        growPool(fixture);
        Reply during = note(fixture, acme, "n-2");
        assertThat(during.status()).isEqualTo(503);
        assertThat(during.header("Content-Type")).startsWith("application/problem+json");
        assertThat(during.problemType()).isEqualTo(TYPE + "ledger-unavailable");
        assertThat(during.header("Retry-After")).isEqualTo("5");
        Reply health = Http.get(fixture.uri(), "/health", null);
        assertThat(health.status()).isEqualTo(503);
        assertThat(health.json().get("status").asText()).isEqualTo("unavailable");
        assertThat(health.json().get("reason").asText()).startsWith("the ledger cannot write");
      } finally {
        ImmutableFiles.makeWritable(fixture.database, wal);
      }

      awaitHealthy(fixture);
      assertThat(note(fixture, acme, "n-2").status())
          .as("the key of the refused call is free")
          .isEqualTo(201);
      for (int i = 3; i <= 8; i++) {
        assertThat(note(fixture, acme, "n-" + i).status()).isEqualTo(201);
      }
      assertThat(fixture.notes()).isEqualTo(8);
      assertThat(fixture.operations()).isEqualTo(8);
    }
  }

  @Test
  void removedLedgerFileIsLedgerUnavailableUntilItIsBack() throws Exception {
    try (ServerFixture fixture = ServerFixture.start(dir)) {
      String acme = fixture.token("acme");
      assertThat(note(fixture, acme, "n-1").status()).isEqualTo(201);
      Path aside = dir.resolve("aside.db");

      Files.move(fixture.database, aside);
      Reply gone = note(fixture, acme, "n-2");
      assertThat(gone.status()).isEqualTo(503);
      assertThat(gone.problemType()).isEqualTo(TYPE + "ledger-unavailable");
      assertThat(gone.json().get("detail").asText()).doesNotContain(dir.toString());
      Reply health = Http.get(fixture.uri(), "/health", null);
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.json().get("reason").asText())
          .isEqualTo("the ledger cannot write: its database file is missing");
      assertThat(fixture.database).doesNotExist();

      Files.move(aside, fixture.database);
      awaitHealthy(fixture);
      assertThat(note(fixture, acme, "n-2").status()).isEqualTo(201);
      assertThat(fixture.notes()).isEqualTo(2);
    }
  }

  @Test
  void titleWithNulIsInvalidParametersOnSqlite() throws Exception {
    try (ServerFixture fixture = ServerFixture.start(dir)) {
      assertNulRefusedAndKeyFree(fixture);
    }
  }

  @Test
  void titleWithNulIsInvalidParametersOnPostgres() throws Exception {
    try (PostgresTestDatabase database = PostgresTestDatabase.create();
        ServerFixture fixture = ServerFixture.postgres(database)) {
      assertNulRefusedAndKeyFree(fixture);
    }
  }

  private static void assertNulRefusedAndKeyFree(ServerFixture fixture) throws Exception {
    String acme = fixture.token("acme");
    Reply refused = Http.createNote(fixture.uri(), acme, "nul-1", "{\"title\":\"a\\u0000b\"}");
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.problemType()).isEqualTo(TYPE + "invalid-parameters");
    assertThat(refused.body()).contains("U+0000");
    assertThat(fixture.notes()).isZero();
    assertThat(fixture.operations()).isZero();
    assertThat(Http.createNote(fixture.uri(), acme, "nul-1", "{\"title\":\"ab\"}").status())
        .isEqualTo(201);
  }

  private static Reply note(ServerFixture fixture, String token, String key) {
    return Http.createNote(fixture.uri(), token, key, "{\"title\":\"" + key + "\"}");
  }

  /** The pool opens connections during the fault, as it does under load. */
  private static void growPool(ServerFixture fixture) throws Exception {
    List<Connection> held = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      held.add(fixture.store.dataSource().getConnection());
    }
    for (Connection c : held) {
      c.close();
    }
  }

  /** /health reuses its answer for a second; poll it (bounded) until the node says it can write. */
  private static void awaitHealthy(ServerFixture fixture) throws InterruptedException {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    Reply health;
    do {
      health = Http.get(fixture.uri(), "/health", null);
      if (health.status() == 200) {
        return;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("not healthy after the storage recovered: " + health.body());
  }
}
