package dev.toolledger.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A tool whose whole effect is writes to the ledger's own database.
 *
 * <p>The engine calls {@link #execute} inside the transaction that also records the operation, so
 * the effect and its record commit together or not at all. The tool must do its work only through
 * {@link TransactionContext#connection()}, must not commit, roll back or close it, and must not
 * call out to other systems (a remote call inside the transaction holds the write lock while it
 * waits and cannot be rolled back).
 *
 * <p>{@code execute} may run more than once for one key when the database asks for a retry (a
 * serialization failure, a busy lock, a dropped connection): every earlier attempt was rolled back,
 * so exactly one attempt's effect commits.
 */
public non-sealed interface TransactionalTool extends Tool {

  /**
   * Performs the effect.
   *
   * @return the response to record and replay: a success, or a definitive business error after
   *     which nothing was changed
   * @throws Exception to abort: the transaction rolls back and nothing is recorded, so the caller
   *     may retry with the same key
   */
  ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception;
}
