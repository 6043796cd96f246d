package dev.toolledger.jdbc;

import dev.toolledger.jdbc.migration.Migration;
import dev.toolledger.jdbc.migration.SchemaMigrations;

/**
 * The ledger's own tables. Version numbers are the same on every dialect; the SQL is kept to what
 * SQLite, PostgreSQL and PostgreSQL-compatible distributed databases all accept.
 */
final class LedgerSchema {
  static final String COMPONENT = "ledger";

  private LedgerSchema() {}

  static SchemaMigrations migrations() {
    return SchemaMigrations.of(
        COMPONENT,
        Migration.portable(
            1,
            "operations and tokens",
            "CREATE TABLE tl_operations ("
                + " tenant TEXT NOT NULL,"
                + " op_key TEXT NOT NULL,"
                + " tool TEXT,"
                + " tool_version TEXT,"
                + " fingerprint TEXT,"
                + " state TEXT NOT NULL,"
                + " response_status INTEGER,"
                + " response_body TEXT,"
                + " created_at BIGINT NOT NULL,"
                + " completed_at BIGINT,"
                + " expires_at BIGINT,"
                + " PRIMARY KEY (tenant, op_key))",
            "CREATE TABLE tl_tokens ("
                + " id TEXT PRIMARY KEY,"
                + " secret_hash TEXT NOT NULL UNIQUE,"
                + " tenant TEXT NOT NULL,"
                + " label TEXT NOT NULL,"
                + " created_at BIGINT NOT NULL,"
                + " revoked_at BIGINT)"));
  }
}
