package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.jdbc.migration.Migrator;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Token scopes are stored with the token; tokens from before scopes keep what they could do. */
class TokenScopesMigrationTest {
  static final String HASH = "a".repeat(64);

  @TempDir Path dir;

  @Test
  void aTokenIssuedBeforeScopesKeepsEveryTenantPermissionAfterTheUpgrade() throws Exception {
    Path file = dir.resolve("ledger.db");
    // A ledger as the version before token scopes left it: migrations 1 to 4, one token.
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      SchemaMigrations ledger = LedgerSchema.migrations();
      new Migrator(SqlDialect.SQLITE, new SqliteSupport(Duration.ofSeconds(5)), Clock.systemUTC())
          .migrate(
              c,
              List.of(new SchemaMigrations(ledger.component(), ledger.migrations().subList(0, 4))));
      try (Statement st = c.createStatement()) {
        st.executeUpdate(
            "INSERT INTO tl_tokens (id, secret_hash, tenant, label, created_at) VALUES"
                + " ('0123456789ab', '"
                + HASH
                + "', 'acme', 'old', 0)");
      }
    }

    try (JdbcLedgerStore store = JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build())) {
      TokenRecord token = store.findBySecretHash(HASH).orElseThrow();

      assertThat(token.tenant()).contains(TenantId.of("acme"));
      assertThat(token.scopes()).isEqualTo(Scopes.tenantAll());
    }
  }

  @Test
  void scopesAndOperatorTokensRoundTripThroughTheStore() {
    try (JdbcLedgerStore store =
        JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build())) {
      TokenRecord narrow =
          new TokenRecord(
              "000000000001",
              "b".repeat(64),
              Optional.of(TenantId.of("acme")),
              Scopes.of("tools:create-note", "read"),
              "narrow",
              Instant.ofEpochMilli(1),
              Optional.empty());
      TokenRecord operator =
          new TokenRecord(
              "000000000002",
              "c".repeat(64),
              Optional.empty(),
              Scopes.operator(),
              "console",
              Instant.ofEpochMilli(2),
              Optional.empty());
      store.insert(narrow);
      store.insert(operator);

      assertThat(store.list()).containsExactly(narrow, operator);
      assertThat(
              StoreContractTest.queryLong(
                  store, "SELECT COUNT(*) FROM tl_tokens WHERE tenant = '*'"))
          .as("an operator token is stored under no tenant a caller could have")
          .isEqualTo(1);
    }
  }
}
