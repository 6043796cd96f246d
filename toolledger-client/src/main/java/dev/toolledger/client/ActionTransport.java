package dev.toolledger.client;

import dev.toolledger.client.journal.Action;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.OperationKey;
import java.time.Duration;

/**
 * One attempt at sending an action, or at looking a key up, over some protocol. The client's
 * built-in transport speaks ToolLedger's HTTP API; another one (an MCP {@code tools/call} carrying
 * the key in {@code _meta}) plugs into {@link ToolLedgerClient.Builder#transport} and gets the
 * journal, the retry policy and resume unchanged.
 *
 * <p>Rules for an implementation:
 *
 * <ul>
 *   <li>Make exactly one attempt; never retry (the client's retrier is the only retrying layer).
 *   <li>Send the given key, unchanged, as the action's operation key.
 *   <li>Return {@link AttemptResult.Retry} only when trying again with the same key is safe and may
 *       help: transport failures, timeouts, "in progress", "busy", a server error that recorded
 *       nothing. Pass on the server's {@code Retry-After}.
 *   <li>Return {@link AttemptResult.Done} with a {@link Outcome} for every definitive answer: a
 *       recorded outcome is {@link Outcome.Completed}, whatever its status; a refusal after which
 *       nothing happened is {@link Outcome.Rejected}; an answer that says the outcome is unknown is
 *       {@link Outcome.Unknown}.
 *   <li>Do not throw for anything you can classify; an exception ends the call as {@link
 *       Outcome.Unknown}.
 * </ul>
 */
public interface ActionTransport {

  /**
   * Sends one attempt of the action under {@code key}.
   *
   * @param timeout the longest this attempt may take (already capped to the policy's deadline)
   */
  AttemptResult<Outcome> send(OperationKey key, Action action, Duration timeout);

  /**
   * One lookup of a key. {@link LookupResult.Found} and {@link LookupResult.NotFound} are {@link
   * AttemptResult.Done}; a refused lookup (bad token) is {@code Done} with {@link
   * LookupResult.Unavailable}; a transient failure is {@link AttemptResult.Retry}.
   */
  AttemptResult<LookupResult> lookup(OperationKey key, Duration timeout);
}
