package dev.toolledger.declarative.http;

import dev.toolledger.api.ExternalTool;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.junit.jupiter.api.AfterEach;

class PostgresHttpToolTest extends HttpToolContractTest {
  private PostgresTestDatabase database;

  @Override
  Nodes openNodes(ExternalTool tool) {
    if (database == null) {
      database = PostgresTestDatabase.create();
    }
    return Nodes.postgres(database, tool);
  }

  @AfterEach
  void dropSchema() {
    // JUnit runs this before the base class's stop(); the schema can only be dropped once the
    // nodes are closed (stopping again there is harmless).
    stop();
    if (database != null) {
      database.close();
    }
  }
}
