package dev.toolledger.core.engine;

import dev.toolledger.core.engine.ExecutionOutcome.Busy;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InProgress;
import dev.toolledger.core.engine.ExecutionOutcome.InvalidParameters;
import dev.toolledger.core.engine.ExecutionOutcome.KeyReused;
import dev.toolledger.core.engine.ExecutionOutcome.NotExecuted;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.ExecutionOutcome.UnknownTool;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.protocol.ProblemType;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports each execution once it is decided: one "operation" log line and the {@link
 * OutcomeListener}'s calls (metrics). A listener that throws is logged and ignored; it never
 * changes the caller's answer.
 */
final class OutcomeReporter {
  /**
   * The engine's logger: the "operation" line's {@code logger_name} is part of what operators
   * filter and alert on (docs/operations.md).
   */
  private static final Logger LOG = LoggerFactory.getLogger(LedgerEngine.class);

  private final OutcomeListener listener;
  private final KeyHasher keys;

  OutcomeReporter(OutcomeListener listener, KeyHasher keys) {
    this.listener = listener;
    this.keys = keys;
  }

  /** An invocation answered with {@code outcome}, of kind {@code kind}. */
  void report(Invocation invocation, ExecutionOutcome outcome, String kind, long startedNanos) {
    report(invocation, outcome, null, kind, startedNanos);
  }

  /** An invocation that ended with {@code failure} thrown to the caller. */
  void report(Invocation invocation, RuntimeException failure, String kind, long startedNanos) {
    report(invocation, null, failure, kind, startedNanos);
  }

  private void report(
      Invocation invocation,
      ExecutionOutcome outcome,
      RuntimeException failure,
      String kind,
      long startedNanos) {
    Duration duration = Duration.ofNanos(System.nanoTime() - startedNanos);
    if (LOG.isInfoEnabled()) {
      var line =
          LOG.atInfo()
              .addKeyValue("outcome", kind)
              .addKeyValue("tenant", invocation.tenant().value())
              .addKeyValue("tool", invocation.tool())
              .addKeyValue("key", keys.hash(invocation.tenant(), invocation.key()))
              .addKeyValue("ms", duration.toMillis());
      String error = outcome != null ? errorCategory(outcome) : errorCategory(failure);
      if (error != null) {
        line = line.addKeyValue("error", error);
      }
      line.log("operation");
    }
    try {
      listener.onOutcome(invocation.tenant(), invocation.tool(), kind, duration);
      if (outcome instanceof Executed executed && executed.response().status() < 400) {
        listener.onEffect(invocation.tenant(), invocation.tool());
      }
      if (failure instanceof StoreUnavailableException) {
        listener.onStorageFault();
      }
    } catch (RuntimeException e) {
      LOG.warn("an outcome listener threw; ignoring it", e);
    }
  }

  /**
   * The error category of an answer that is not a recorded outcome: the slug of the problem type
   * the HTTP API and MCP answer with. Null for an execution or a replay.
   */
  private static String errorCategory(ExecutionOutcome outcome) {
    ProblemType type;
    if (outcome instanceof Executed || outcome instanceof Replayed) {
      return null;
    } else if (outcome instanceof KeyReused) {
      type = ProblemType.KEY_REUSED;
    } else if (outcome instanceof InProgress) {
      type = ProblemType.IN_PROGRESS;
    } else if (outcome instanceof OutcomeUnknown) {
      type = ProblemType.OUTCOME_UNKNOWN;
    } else if (outcome instanceof NotExecuted) {
      type = ProblemType.NOT_EXECUTED;
    } else if (outcome instanceof InvalidParameters) {
      type = ProblemType.INVALID_PARAMETERS;
    } else if (outcome instanceof UnknownTool) {
      type = ProblemType.UNKNOWN_TOOL;
    } else if (outcome instanceof ExecutionOutcome.ToolUnavailable) {
      type = ProblemType.TOOL_UNAVAILABLE;
    } else if (outcome instanceof Busy) {
      type = ProblemType.STORE_BUSY;
    } else {
      return outcome.kind();
    }
    return type.slug();
  }

  private static String errorCategory(RuntimeException failure) {
    if (failure instanceof ToolExecutionException) {
      return ProblemType.TOOL_FAILED.slug();
    }
    if (failure instanceof TransientStoreException) {
      return ProblemType.STORE_BUSY.slug();
    }
    if (failure instanceof StoreUnavailableException) {
      return ProblemType.STORE_UNAVAILABLE.slug();
    }
    return ProblemType.INTERNAL.slug();
  }
}
