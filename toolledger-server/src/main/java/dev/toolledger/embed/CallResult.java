package dev.toolledger.embed;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;

/**
 * What one in-process call of a tool under an operation key came to. Only {@link Done} carries an
 * outcome; every other variant means this call changed nothing.
 */
public sealed interface CallResult {

  /**
   * The recorded outcome: the tool ran now ({@code replayed == false}) or ran before under this key
   * with the same intent ({@code replayed == true}). A status of 400 or more is a definitive
   * business error the tool returned, recorded and replayed like a success.
   */
  record Done(int status, JsonNode body, boolean replayed) implements CallResult {}

  /** The key belongs to an operation of another tool, tool version or parameters. */
  record Conflict(String recordedTool) implements CallResult {}

  /** Another execution of the key is running; ask again after {@code retryAfter}. */
  record InProgress(Duration retryAfter) implements CallResult {}

  /**
   * The effect may or may not have happened (an external tool lost its answer); it stays unknown
   * until an operator or a lookup settles it. Never retry under a new key.
   */
  record Unknown() implements CallResult {}

  /** The key is fenced: confirmed that it did not, and will not, execute. */
  record NotExecuted() implements CallResult {}

  /** The parameters break the tool's schema; nothing was recorded and the key stays free. */
  record Invalid(List<String> violations) implements CallResult {
    public Invalid {
      violations = List.copyOf(violations);
    }
  }

  /** No tool of that name is served. */
  record UnknownTool(String tool) implements CallResult {}

  /**
   * Not run now, nothing recorded, the same key may be retried after {@code retryAfter}: the
   * downstream refused before acting, the tenant's rate of new operations was exceeded, or the
   * ledger was busy.
   */
  record RetryLater(String reason, Duration retryAfter) implements CallResult {}

  /** The key's record expired and was swept; its outcome is gone and nothing ran. */
  record Expired() implements CallResult {}

  /** The tool's answer is larger than the ledger records; nothing was committed. */
  record TooLarge(long bytes, long limit) implements CallResult {}
}
