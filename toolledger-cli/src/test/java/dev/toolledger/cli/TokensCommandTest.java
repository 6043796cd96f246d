package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.auth.Tokens;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code toolledger tokens}: scopes and operator tokens are issued, listed and revoked. */
class TokensCommandTest {
  @TempDir Path dir;

  /** What a command printed, and how it ended. */
  record Run(int exit, String out, String err) {}

  Run tokens(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      String[] all = new String[args.length + 3];
      all[0] = "tokens";
      System.arraycopy(args, 0, all, 1, args.length);
      all[args.length + 1] = "--db";
      all[args.length + 2] = dir.resolve("ledger.db").toString();
      int exit = Main.run(all);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
  }

  Principal authenticate(String token) {
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build())) {
      return new Tokens(store, Clock.systemUTC(), Duration.ZERO).authenticate(token).orElseThrow();
    }
  }

  @Test
  void aTenantTokenGetsEveryToolAndReadUnlessToldOtherwise() {
    Run created = tokens("create", "--tenant", "acme");

    assertThat(created.exit()).isZero();
    Principal principal = authenticate(created.out().strip());
    assertThat(principal.tenant()).isEqualTo(TenantId.of("acme"));
    assertThat(principal.scopes()).isEqualTo(Scopes.of("tools:*", "read"));
    assertThat(created.err()).contains("with scopes read tools:*");
  }

  @Test
  void scopesGivenAreTheScopesTheTokenHasAndTheListShowsThem() {
    Run created = tokens("create", "--tenant", "acme", "--scope", "read", "--scope", "tools:x");

    Principal principal = authenticate(created.out().strip());
    assertThat(principal.scopes()).isEqualTo(Scopes.of("read", "tools:x"));
    assertThat(principal.mayCall("x")).isTrue();
    assertThat(principal.mayCall("create-note")).isFalse();
    Run list = tokens("list");
    assertThat(list.out()).contains("SCOPES").contains("read tools:x").contains("acme");
    assertThat(list.out()).doesNotContain(created.out().strip());
  }

  @Test
  void anOperatorTokenHasNoTenantAndListsAsOperator() {
    Run created = tokens("create", "--operator", "--label", "console");

    assertThat(created.exit()).isZero();
    Principal principal = authenticate(created.out().strip());
    assertThat(principal.isOperator()).isTrue();
    assertThat(principal.scopes()).isEqualTo(Scopes.operator());
    assertThat(principal.mayCall("create-note")).isFalse();
    assertThat(tokens("list").out()).contains("(operator)").contains("console");
  }

  @Test
  void nonsenseIsRefusedWithAMessage() {
    assertThat(tokens("create", "--operator", "--tenant", "acme").exit()).isEqualTo(2);
    assertThat(tokens("create").exit()).isEqualTo(2);
    Run unknown = tokens("create", "--tenant", "acme", "--scope", "write");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("unknown scope 'write'");
    Run operatorScope = tokens("create", "--tenant", "acme", "--scope", "operator");
    assertThat(operatorScope.exit()).isEqualTo(1);
    assertThat(operatorScope.err()).contains("--operator");
    assertThat(tokens("list").out().lines().count()).as("only the header").isEqualTo(1);
  }

  @Test
  void aRevokedTokenIsRefused() {
    String token = tokens("create", "--tenant", "acme").out().strip();
    String id = token.split("_")[1];

    assertThat(tokens("revoke", id).exit()).isZero();

    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build())) {
      assertThat(new Tokens(store, Clock.systemUTC(), Duration.ZERO).authenticate(token)).isEmpty();
    }
    assertThat(tokens("list").out()).contains("revoked");
  }
}
