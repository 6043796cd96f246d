package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.auth.Tokens;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Accepted tokens are trusted for a short time; revocation through this node is immediate. */
class TokenCacheTest {
  @TempDir Path dir;
  JdbcLedgerStore store;

  @BeforeEach
  void open() {
    store = JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void revokingThroughThisNodeTakesEffectAtOnce() {
    Tokens tokens = new Tokens(store, Clock.systemUTC(), Duration.ofMinutes(5));
    Tokens.IssuedToken issued = tokens.issue(TenantId.of("acme"), "t");
    assertThat(tokens.authenticate(issued.token())).isPresent();

    assertThat(tokens.revoke(issued.record().id())).isTrue();

    assertThat(tokens.authenticate(issued.token())).isEmpty();
  }

  @Test
  void revocationByAnotherProcessIsSeenOnceTheCacheEntryExpires() throws Exception {
    // Long enough that the revoke and the next look-up fit in it on a loaded machine (the cache
    // measures real time); the wait for the entry to expire is polled.
    Tokens tokens = new Tokens(store, Clock.systemUTC(), Duration.ofSeconds(2));
    Tokens.IssuedToken issued = tokens.issue(TenantId.of("acme"), "t");
    assertThat(tokens.authenticate(issued.token())).isPresent();

    // Another process revokes it in the database, behind this node's back.
    store.revoke(issued.record().id(), Instant.now());
    assertThat(tokens.authenticate(issued.token()))
        .as("trusted within the cache's time")
        .isPresent();

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (tokens.authenticate(issued.token()).isPresent()) {
      assertThat(System.nanoTime()).as("revocation never seen").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void withoutACacheEveryRequestReadsTheToken() {
    Tokens tokens = new Tokens(store, Clock.systemUTC(), Duration.ZERO);
    Tokens.IssuedToken issued = tokens.issue(TenantId.of("acme"), "t");
    assertThat(tokens.authenticate(issued.token())).isPresent();

    store.revoke(issued.record().id(), Instant.now());

    assertThat(tokens.authenticate(issued.token())).isEmpty();
  }

  @Test
  void unknownTokensAreRefusedAndNotRemembered() {
    Tokens tokens = new Tokens(store, Clock.systemUTC(), Duration.ofMinutes(5));
    assertThat(tokens.authenticate("tl_000000000000_guess")).isEmpty();
    assertThat(tokens.authenticate("not-a-token")).isEmpty();
  }
}
