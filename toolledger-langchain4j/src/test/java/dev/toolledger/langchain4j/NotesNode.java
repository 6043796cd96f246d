package dev.toolledger.langchain4j;

import dev.toolledger.api.TenantId;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * A real ToolLedger node embedded through its public door, serving {@code create-note} over HTTP on
 * a free loopback port, on a real SQLite file whose rows the tests count.
 */
final class NotesNode implements AutoCloseable {
  private final Path database;
  private final ToolLedger ledger;

  private NotesNode(Path database, ToolLedger ledger) {
    this.database = database;
    this.ledger = ledger;
  }

  static NotesNode start(Path dir) {
    try {
      java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Path database = dir.resolve("ledger.db");
    ToolLedger ledger =
        ToolLedger.builder(database.toString())
            .plugin(NotesPlugin.serving(NotesTool.unlimited()))
            .http("127.0.0.1", 0)
            .build();
    return new NotesNode(database, ledger);
  }

  URI uri() {
    return ledger.httpUri().orElseThrow();
  }

  String token(String tenant) {
    return ledger.issueToken(TenantId.of(tenant), "langchain4j-test");
  }

  long notes() throws Exception {
    return count("SELECT COUNT(*) FROM notes", null);
  }

  long notesTitled(String title) throws Exception {
    return count("SELECT COUNT(*) FROM notes WHERE title = ?", title);
  }

  long operations() throws Exception {
    return count("SELECT COUNT(*) FROM tl_operations", null);
  }

  /** Whether the ledger holds an operation under this key. */
  boolean holdsKey(String key) throws Exception {
    return count("SELECT COUNT(*) FROM tl_operations WHERE op_key = ?", key) == 1;
  }

  private long count(String sql, String argument) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
        PreparedStatement ps = c.prepareStatement(sql)) {
      if (argument != null) {
        ps.setString(1, argument);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public void close() {
    ledger.close();
  }
}
