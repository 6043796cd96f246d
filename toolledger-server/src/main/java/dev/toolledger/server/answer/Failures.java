package dev.toolledger.server.answer;

import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.observe.LogSafety;
import org.slf4j.Logger;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * A call that ended in an exception: logged with its error category, then answered by {@link
 * Answers#of(RuntimeException, Channel)}. A tool's exception is logged without its message, which
 * often holds the tool's input; the caller is never shown the exception at all.
 */
public final class Failures {
  private Failures() {}

  /**
   * Logs a failed call and gives the answer its caller gets.
   *
   * @param log the transport's logger, so that a log line names the front the call came through
   * @param tool the tool called, for the log; null when the transport does not know it
   * @param where what failed, for the log line of an unexpected failure ("on GET /health")
   */
  public static Answer answer(
      Logger log, RuntimeException failure, Channel channel, String tool, String where) {
    if (failure instanceof ToolExecutionException e) {
      log.atError()
          .addKeyValue("error", ProblemType.TOOL_FAILED.slug())
          .addKeyValue("tool", e.tool())
          .setCause(LogSafety.withoutMessages(e.getCause()))
          .log("the tool failed; its transaction was rolled back");
    } else if (failure instanceof TransientStoreException) {
      log.atWarn()
          .addKeyValue("error", ProblemType.STORE_BUSY.slug())
          .log("the ledger's database is busy: {}", failure.getMessage());
    } else if (failure instanceof StoreUnavailableException) {
      log.atError()
          .addKeyValue("error", ProblemType.STORE_UNAVAILABLE.slug())
          .log("the ledger's storage failed: {}", failure.getMessage());
    } else {
      LoggingEventBuilder event = log.atError().addKeyValue("error", ProblemType.INTERNAL.slug());
      if (tool != null) {
        event = event.addKeyValue("tool", tool);
      }
      event.setCause(LogSafety.withoutMessages(failure)).log("unexpected failure {}", where);
    }
    return Answers.of(failure, channel);
  }
}
