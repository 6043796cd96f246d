package dev.toolledger.server;

import dev.toolledger.core.engine.ExpirySweeper;
import dev.toolledger.core.engine.RecoveryWorker;
import dev.toolledger.core.outbox.OutboxRelay;
import dev.toolledger.protocol.NotApi;
import dev.toolledger.server.mcp.McpStdio;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A ToolLedger node that serves MCP on stdio instead of HTTP: the same tools and background workers
 * as {@link ToolLedgerApp}. The store is not owned: close it after this.
 */
@NotApi
public final class ToolLedgerStdio implements AutoCloseable {
  private final McpStdio mcp;
  private final Optional<OutboxRelay> relay;
  private final Optional<RecoveryWorker> recovery;
  private final Optional<ExpirySweeper> sweeper;
  private final AtomicBoolean closed = new AtomicBoolean();

  ToolLedgerStdio(
      McpStdio mcp,
      Optional<OutboxRelay> relay,
      Optional<RecoveryWorker> recovery,
      Optional<ExpirySweeper> sweeper) {
    this.mcp = mcp;
    this.relay = relay;
    this.recovery = recovery;
    this.sweeper = sweeper;
  }

  /** Blocks until the client closes the input stream (or reading it fails). */
  public void awaitEndOfInput() throws InterruptedException {
    mcp.awaitEndOfInput();
  }

  /**
   * Closes the MCP session, waits (up to the drain timeout) for tool calls still running so that
   * each records its outcome, then stops the background workers. Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      mcp.close();
      relay.ifPresent(OutboxRelay::close);
      recovery.ifPresent(RecoveryWorker::close);
      sweeper.ifPresent(ExpirySweeper::close);
    }
  }
}
