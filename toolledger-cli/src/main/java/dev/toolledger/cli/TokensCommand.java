package dev.toolledger.cli;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.auth.Tokens;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
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
      description = {
        "Issue a token and print it once: for a tenant (--tenant, with --scope as needed), or an"
            + " operator token (--operator) for the operator console, which acts for no tenant"
            + " and is refused by the tenant API and MCP.",
        "Scopes: tools:* (every tool), tools:NAME (one tool; calling includes replaying), read"
            + " (look operations up), resolve (resolve UNKNOWN operations explicitly)."
      })
  static final class Create implements Callable<Integer> {
    @Mixin DatabaseOptions database;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Who who;

    static final class Who {
      @ArgGroup(exclusive = false)
      ForTenant tenant;

      @Option(
          names = "--operator",
          required = true,
          description = "Issue an operator token (scope operator, no tenant).")
      boolean operator;
    }

    static final class ForTenant {
      @Option(names = "--tenant", required = true, description = "The tenant the token acts for.")
      String tenant;

      @Option(
          names = "--scope",
          paramLabel = "SCOPE",
          description =
              "What the token may do; repeatable (default: tools:* and read). For example"
                  + " --scope read for a read-only token, --scope tools:create-note for one tool.")
      List<String> scopes = new ArrayList<>();
    }

    @Option(
        names = "--label",
        description = "A note for listings (default: none).",
        defaultValue = "")
    String label;

    @Override
    public Integer call() {
      try (JdbcLedgerStore store = database.open()) {
        Tokens tokens = new Tokens(store, Clock.systemUTC());
        Tokens.IssuedToken issued;
        if (who.operator) {
          issued = tokens.issueOperator(label);
        } else {
          Scopes scopes =
              who.tenant.scopes.isEmpty() ? Scopes.tenantDefault() : Scopes.of(who.tenant.scopes);
          if (scopes.isOperator()) {
            throw new IllegalArgumentException(
                "the operator scope belongs to operator tokens: use --operator without --tenant");
          }
          issued = tokens.issue(TenantId.of(who.tenant.tenant), scopes, label);
        }
        System.out.println(issued.token());
        System.err.println(
            "toolledger: token "
                + issued.record().id()
                + issued.record().tenant().map(t -> " for tenant " + t).orElse(" (operator)")
                + " with scopes "
                + issued.record().scopes()
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
            "%-14s %-20s %-8s %-30s %-24s %s%n",
            "ID", "TENANT", "STATE", "SCOPES", "CREATED", "LABEL");
        for (TokenRecord token : store.list()) {
          System.out.printf(
              "%-14s %-20s %-8s %-30s %-24s %s%n",
              token.id(),
              token.tenant().map(TenantId::value).orElse("(operator)"),
              token.isActive() ? "active" : "revoked",
              token.scopes(),
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
