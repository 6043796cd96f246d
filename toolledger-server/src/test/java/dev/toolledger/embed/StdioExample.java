package dev.toolledger.embed;

import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import java.io.PrintStream;

/**
 * docs/mcp.md's example of an application that an MCP client starts as its server process, as
 * written between the markers ({@link EmbeddedStdioDocExampleTest} checks that the page shows
 * exactly these lines, and runs this program under a real MCP client).
 */
public final class StdioExample {
  private StdioExample() {}

  public static void main(String[] args) throws Exception {
    String database = args[0];
    // docs/mcp.md:start
    PrintStream protocol = System.out; // MCP owns stdout:
    System.setOut(System.err); // logs and anything else printed go to stderr
    try (StdioSession mcp =
        ToolLedger.builder(database) // a SQLite file or a jdbc:postgresql:// URL
            .plugin(new NotesPlugin())
            .allowUnkeyed("create-note") // optional: calls without a key, not safe to retry
            .serveStdio(TenantId.of("acme"), System.in, protocol)) {
      mcp.awaitEndOfInput(); // until the client closes stdin
    }
    // docs/mcp.md:end
  }
}
