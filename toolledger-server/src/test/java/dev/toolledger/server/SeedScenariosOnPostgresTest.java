package dev.toolledger.server;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.junit.jupiter.api.AfterEach;

class SeedScenariosOnPostgresTest extends SeedScenariosHttpTest {
  private PostgresTestDatabase database;

  @Override
  ServerFixture startServer() {
    database = PostgresTestDatabase.create();
    return ServerFixture.postgres(database);
  }

  @AfterEach
  void dropSchema() {
    // JUnit runs this before the base class's stop(); the schema can only be dropped once the
    // fixture's pools are closed (closing again in stop() is harmless).
    fixture.close();
    database.close();
  }
}
