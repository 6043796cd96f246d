package com.example.notes;

import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The scenario with the application and the ledger in one real SQLite file. */
class SqliteNotesScenarioTest extends NotesScenarioTest {
  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) throws Exception {
    Path file = Files.createTempDirectory("spring-boot-notes").resolve("notes.db");
    registry.add("spring.datasource.url", () -> "jdbc:sqlite:" + file);
  }
}
