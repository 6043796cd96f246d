package dev.toolledger.core.engine;

import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.protocol.StoredResponse;
import java.time.Duration;
import java.util.List;

/**
 * How the engine answered an invocation. Exactly two variants carry a recorded outcome ({@link
 * Executed} and {@link Replayed}); every other variant means this call changed nothing.
 */
public sealed interface ExecutionOutcome {

  /** Short stable name, used for logs and metrics. */
  String kind();

  /** The tool ran now and its outcome was committed together with its effect. */
  record Executed(OperationRecord record) implements ExecutionOutcome {
    public StoredResponse response() {
      return record.response().orElseThrow();
    }

    @Override
    public String kind() {
      return "executed";
    }
  }

  /** The key was already completed with the same intent; the stored outcome is returned. */
  record Replayed(OperationRecord record) implements ExecutionOutcome {
    public StoredResponse response() {
      return record.response().orElseThrow();
    }

    @Override
    public String kind() {
      return "replayed";
    }
  }

  /** The key belongs to an operation with another tool, version or parameters. */
  record KeyReused(String recordedTool) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "conflict";
    }
  }

  /** Another execution of the same key is still running; ask again later. */
  record InProgress(Duration retryAfter) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "in_progress";
    }
  }

  /** The operation's effect may or may not have happened; it must be looked up or resolved. */
  record OutcomeUnknown(OperationRecord record) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "unknown";
    }
  }

  /** The key is fenced: it is confirmed that it did not, and will not, execute. */
  record NotExecuted(OperationRecord record) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "not_executed";
    }
  }

  /** The parameters break the tool's schema. Nothing was recorded; the key stays free. */
  record InvalidParameters(List<Violation> violations) implements ExecutionOutcome {
    public InvalidParameters {
      violations = List.copyOf(violations);
    }

    @Override
    public String kind() {
      return "rejected";
    }
  }

  /** No tool has that name. */
  record UnknownTool(String tool) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "rejected";
    }
  }

  /**
   * An external tool reported that its effect certainly did not happen (the downstream refused or
   * could not be reached before acting); the claim was released, so the same key may be retried.
   */
  record ToolUnavailable(String reason, Duration retryAfter) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "not_done";
    }
  }

  /**
   * The key's operation completed long ago: its record expired and was swept, and its tombstone
   * still guards the key. Its outcome is no longer available and nothing was executed, whatever the
   * parameters. After the tombstone's window the key is new again.
   */
  record Expired(Tombstone tombstone) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "expired";
    }
  }

  /**
   * The key is new but the tenant started more new operations on this node than its rate allows;
   * nothing was recorded. Replays and lookups are never limited.
   */
  record RateLimited(Duration retryAfter) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "rate_limited";
    }
  }

  /**
   * The tool's response is larger than the ledger stores; its transaction was rolled back, so the
   * effect did not happen and nothing was recorded.
   */
  record ResponseTooLarge(String tool, long bytes, long limit) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "response_too_large";
    }
  }

  /** The database stayed busy past the retry budget; nothing was written. */
  record Busy(Duration retryAfter) implements ExecutionOutcome {
    @Override
    public String kind() {
      return "busy";
    }
  }
}
