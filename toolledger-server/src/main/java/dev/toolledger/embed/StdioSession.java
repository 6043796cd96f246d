package dev.toolledger.embed;

import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.ToolLedgerStdio;

/**
 * A ledger serving MCP on a pair of streams, normally the process's stdin and stdout, for an MCP
 * client that starts the application as its server process. Started by {@link
 * ToolLedger.Builder#serveStdio}. Every call acts as the one tenant given there.
 *
 * <pre>{@code
 * try (StdioSession mcp = ToolLedger.builder("orders-ledger.db")
 *         .plugin(new OrdersPlugin())
 *         .serveStdio(TenantId.of("acme"), System.in, System.out)) {
 *   mcp.awaitEndOfInput();
 * }
 * }</pre>
 *
 * <p>Only the protocol is written to the output stream: the application must log elsewhere
 * (stderr). {@link #close()} waits for tool calls still running (up to {@link
 * ToolLedger.Builder#mcpDrainTimeout}) so that each records its outcome, stops the background
 * workers and closes the database.
 */
public final class StdioSession implements AutoCloseable {
  private final JdbcLedgerStore store;
  private final ToolLedgerStdio stdio;

  StdioSession(JdbcLedgerStore store, ToolLedgerStdio stdio) {
    this.store = store;
    this.stdio = stdio;
  }

  /** Blocks until the client closes the input stream (or reading it fails). */
  public void awaitEndOfInput() throws InterruptedException {
    stdio.awaitEndOfInput();
  }

  /** Closes the session, then the database. Idempotent. */
  @Override
  public void close() {
    try {
      stdio.close();
    } finally {
      store.close();
    }
  }
}
