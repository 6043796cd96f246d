package com.example.notes;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An ordinary Spring Boot application with one write tool for AI agents, {@code create-note} on the
 * application's own {@code app_notes} table. The ToolLedger starter does the rest: the ledger in
 * the same database, the HTTP API under {@code /toolledger/v1}, MCP at {@code /toolledger/mcp}.
 */
@SpringBootApplication
public class NotesApplication {
  public static void main(String[] args) {
    SpringApplication.run(NotesApplication.class, args);
  }
}
