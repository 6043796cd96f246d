package dev.toolledger.cli;

import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.identity.TenantId;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.auth.Tokens;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code toolledger tokens}: issue, list and revoke bearer tokens. */
@Command(
    name = "tokens",
    mixinStandardHelpOptions = true,
    description = "Manage bearer tokens. Only a token's SHA-256 is stored.",
    subcommands = {
      TokensCommand.Create.class,
      TokensCommand.ListTokens.class,
      TokensCommand.Revoke.class
    })
final class TokensCommand {

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = "Issue a token for a tenant and print it once.")
  static final class Create implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Option(names = "--tenant", required = true, description = "The tenant the token acts for.")
    String tenant;

    @Option(
        names = "--label",
        description = "A note for listings (default: none).",
        defaultValue = "")
    String label;

    @Override
    public Integer call() {
      TenantId tenantId = TenantId.of(tenant);
      try (JdbcLedgerStore store = database.open()) {
        Tokens.IssuedToken issued = new Tokens(store, Clock.systemUTC()).issue(tenantId, label);
        System.out.println(issued.token());
        System.err.println(
            "toolledger: token "
                + issued.record().id()
                + " for tenant "
                + tenantId
                + " (shown once; store it now)");
      }
      return 0;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List tokens (never their secrets).")
  static final class ListTokens implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Override
    public Integer call() {
      try (JdbcLedgerStore store = database.open()) {
        System.out.printf(
            "%-14s %-20s %-8s %-24s %s%n", "ID", "TENANT", "STATE", "CREATED", "LABEL");
        for (TokenRecord token : store.list()) {
          System.out.printf(
              "%-14s %-20s %-8s %-24s %s%n",
              token.id(),
              token.tenant(),
              token.isActive() ? "active" : "revoked",
              token.createdAt(),
              token.label());
        }
      }
      return 0;
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a token by id.")
  static final class Revoke implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @Parameters(paramLabel = "ID", description = "The token's id, as 'tokens list' shows it.")
    String id;

    @Override
    public Integer call() {
      try (JdbcLedgerStore store = database.open()) {
        if (new Tokens(store, Clock.systemUTC(), Duration.ZERO).revoke(id)) {
          System.out.println("revoked " + id);
          return 0;
        }
        System.err.println("toolledger: no active token has the id " + id);
        return 1;
      }
    }
  }
}
