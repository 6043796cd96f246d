package com.example.notes;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The scenario on real PostgreSQL: {@code TOOLLEDGER_TEST_PG_URL} when set, else the embedded
 * server the repository's tests share; a fresh schema for this class. The schema is not dropped:
 * Spring's test context cache keeps the application (and its pool on the schema) until the JVM
 * ends.
 */
class PostgresNotesScenarioTest extends NotesScenarioTest {
  static PostgresTestDatabase database;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    database = PostgresTestDatabase.create();
    registry.add("spring.datasource.url", database::url);
  }
}
