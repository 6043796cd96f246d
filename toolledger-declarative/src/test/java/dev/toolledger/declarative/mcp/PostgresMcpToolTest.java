package dev.toolledger.declarative.mcp;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.junit.jupiter.api.AfterEach;

class PostgresMcpToolTest extends McpToolContractTest {
  private PostgresTestDatabase database;

  @Override
  LedgerNodes openNodes() {
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    return LedgerNodes.postgres(database);
  }

  @AfterEach
  void dropSchema() throws Exception {
    // JUnit runs this before the base class's stop(); the schema can only be dropped once the
    // nodes are closed (stopping again there is harmless).
    stop();
    if (database != null) {
      database.close();
    }
  }
}
