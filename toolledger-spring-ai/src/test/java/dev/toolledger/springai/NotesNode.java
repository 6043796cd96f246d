package dev.toolledger.springai;

import dev.toolledger.api.TenantId;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.examples.notes.NotesPlugin;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A real ToolLedger node serving {@code create-note} over HTTP on port 0, on a real SQLite file,
 * embedded through the public {@link ToolLedger} facade. Counts are read with a separate JDBC
 * connection to the same file, as an operator would.
 */
final class NotesNode implements AutoCloseable {
  private final Path database;
  private final ToolLedger ledger;

  private NotesNode(Path database, ToolLedger ledger) {
    this.database = database;
    this.ledger = ledger;
  }

  static NotesNode start(Path dir) {
    return start(dir, new NotesPlugin());
  }

  /** A node serving {@code plugin} (for example notes with a quota). */
  static NotesNode start(Path dir, NotesPlugin plugin) {
    Path database = dir.resolve("ledger.db");
    return new NotesNode(
        database,
        ToolLedger.builder(database.toString()).plugin(plugin).http("127.0.0.1", 0).build());
  }

  URI uri() {
    return ledger.httpUri().orElseThrow();
  }

  String token(String tenant) {
    return ledger.issueToken(TenantId.of(tenant), "spring-ai-test");
  }

  long notes() throws Exception {
    return count("SELECT COUNT(*) FROM notes");
  }

  /** The operation keys the server's ledger holds, in no particular order. */
  List<String> operationKeys() throws Exception {
    List<String> keys = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT op_key FROM tl_operations")) {
      while (rs.next()) {
        keys.add(rs.getString(1));
      }
    }
    return keys;
  }

  private long count(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() {
    ledger.close();
  }
}
