package dev.toolledger.server.answer;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.operations.OperationJson;
import dev.toolledger.server.operations.OperationProblems;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The one mapping from what the engine did to what the caller is told, for HTTP and MCP alike:
 * every {@link ExecutionOutcome}, the exceptions a call can end in, and the refusals both
 * transports share. A transport only frames the {@link Answer}; the {@link Channel} changes words,
 * never the status, problem type, state or wait.
 */
public final class Answers {
  private Answers() {}

  /** Seconds to wait after the database was momentarily busy (a lock, a serialization failure). */
  static final Duration BUSY_RETRY_AFTER = Duration.ofSeconds(1);

  /** Seconds to wait after the storage failed: long enough for /health to have looked again. */
  static final Duration UNAVAILABLE_RETRY_AFTER = Duration.ofSeconds(5);

  /**
   * The answer to an engine outcome. Java 17 has no switch over a sealed type, so a variant the
   * chain below misses throws here, and {@code EveryOutcomeIsAnsweredTest} fails for it first.
   */
  public static Answer of(ExecutionOutcome outcome, Channel channel) {
    if (outcome instanceof ExecutionOutcome.Executed executed) {
      return new Answer.Recorded(executed.response(), false);
    }
    if (outcome instanceof ExecutionOutcome.Replayed replayed) {
      return new Answer.Recorded(replayed.response(), true);
    }
    if (outcome instanceof ExecutionOutcome.KeyReused reused) {
      return Answer.Refused.of(
          Problem.of(
              ProblemType.KEY_REUSED,
              "this key belongs to an earlier call of "
                  + reused.recordedTool()
                  + " with other "
                  + channel.inputs()
                  + "; a retry must send the same "
                  + channel.inputs()
                  + ", a new action needs a new key"));
    }
    if (outcome instanceof ExecutionOutcome.InProgress inProgress) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.IN_PROGRESS,
              "another "
                  + channel.attempt()
                  + " with this key is still executing; "
                  + channel.again()
                  + " with the same key after "
                  + channel.wait(inProgress.retryAfter())
                  + " to get its outcome"),
          Optional.of(OperationState.IN_PROGRESS),
          Optional.of(inProgress.retryAfter()));
    }
    if (outcome instanceof ExecutionOutcome.OutcomeUnknown) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.OUTCOME_UNKNOWN,
              "the outcome of this operation is unknown: its effect may or may not have happened;"
                  + " it will not be executed again; look it up with "
                  + channel.lookUp()
                  + " or have an operator resolve it"),
          Optional.of(OperationState.UNKNOWN),
          Optional.empty());
    }
    if (outcome instanceof ExecutionOutcome.NotExecuted) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.NOT_EXECUTED,
              "this key was resolved as not executed and is fenced; it will not execute. A new"
                  + " action needs a new key"),
          Optional.of(OperationState.NOT_EXECUTED),
          Optional.empty());
    }
    if (outcome instanceof ExecutionOutcome.InvalidParameters invalid) {
      return invalidParameters(invalid.violations(), channel);
    }
    if (outcome instanceof ExecutionOutcome.UnknownTool unknown) {
      return Answer.Refused.of(
          Problem.of(
              ProblemType.UNKNOWN_TOOL,
              "no tool is named '" + Printable.name(unknown.tool()) + "'"));
    }
    if (outcome instanceof ExecutionOutcome.ToolUnavailable unavailable) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.TOOL_UNAVAILABLE,
              "the tool reported that nothing happened ("
                  + unavailable.reason()
                  + "); nothing was recorded, so "
                  + channel.anotherAttempt()
                  + " with the same key"
                  // Over HTTP the wait is in the Retry-After header beside this detail.
                  + channel.pick("", " after " + channel.wait(unavailable.retryAfter()))
                  + " executes it afresh"),
          Optional.empty(),
          Optional.of(unavailable.retryAfter()));
    }
    if (outcome instanceof ExecutionOutcome.Expired expired) {
      return expired(expired.tombstone());
    }
    if (outcome instanceof ExecutionOutcome.RateLimited limited) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.RATE_LIMITED,
              "this tenant started more new operations than its rate allows; nothing was"
                  + " recorded, so the same "
                  + channel.attempt()
                  + " with the same key may be "
                  + channel.pick("sent", "made")
                  + " again after "
                  + channel.wait(limited.retryAfter())
                  + " (replays and lookups are not limited)"),
          Optional.empty(),
          Optional.of(limited.retryAfter()));
    }
    if (outcome instanceof ExecutionOutcome.ResponseTooLarge tooLarge) {
      return Answer.Refused.of(
          Problem.of(
              ProblemType.RESPONSE_TOO_LARGE,
              "the tool's response was "
                  + tooLarge.bytes()
                  + " bytes, more than the "
                  + tooLarge.limit()
                  + " bytes the ledger records; its transaction was rolled back and nothing was"
                  + " recorded. The same "
                  + channel.attempt()
                  + " will most likely fail the same way"));
    }
    if (outcome instanceof ExecutionOutcome.Busy busy) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.STORE_BUSY,
              "the ledger stayed busy and nothing was recorded; "
                  + channel.again()
                  + " with the same key after "
                  + channel.wait(busy.retryAfter())),
          Optional.empty(),
          Optional.of(busy.retryAfter()));
    }
    throw new IllegalStateException("no answer for the engine outcome " + outcome.kind());
  }

  /**
   * The answer to a call that ended in an exception. Nothing was recorded by it: a failing tool's
   * transaction was rolled back, and a ledger that is busy or whose storage failed wrote nothing.
   * An exception of no known kind is an internal error; the caller is told to look the key up
   * first, because it cannot know how far the call got.
   */
  public static Answer of(RuntimeException failure, Channel channel) {
    if (failure instanceof ToolExecutionException) {
      return Answer.Refused.of(
          Problem.of(
              ProblemType.TOOL_FAILED,
              "the tool failed and its transaction was rolled back; nothing was recorded, so "
                  + channel.anotherAttempt()
                  + " with the same key executes it afresh"));
    }
    if (failure instanceof TransientStoreException) {
      return new Answer.Refused(
          Problem.of(
              ProblemType.STORE_BUSY,
              channel.pick(
                  "the ledger is busy; retry shortly",
                  "the ledger is busy; call again with the same key shortly")),
          Optional.empty(),
          Optional.of(BUSY_RETRY_AFTER));
    }
    if (failure instanceof StoreUnavailableException) {
      // No path and no driver message here: those go to the log only.
      return new Answer.Refused(
          Problem.of(
              ProblemType.STORE_UNAVAILABLE,
              "the ledger's storage failed and nothing was recorded; "
                  + channel.pick(
                      "retry with the same key once /health answers ok again",
                      "call again with the same key once the server's /health answers ok")),
          Optional.empty(),
          Optional.of(UNAVAILABLE_RETRY_AFTER));
    }
    return Answer.Refused.of(
        Problem.of(
            ProblemType.INTERNAL,
            "an unexpected error occurred; "
                + channel.pick(
                    "if this was a tool call, look its key up before retrying",
                    "look the operation up with get-operation before calling again")));
  }

  /** The arguments break the tool's schema; {@code errors} names each field at fault. */
  public static Answer.Refused invalidParameters(List<Violation> violations, Channel channel) {
    ArrayNode errors = Json.mapper().createArrayNode();
    for (Violation violation : violations) {
      errors.addObject().put("field", violation.field()).put("message", violation.message());
    }
    String whole = channel.pick("(body)", "(arguments)");
    String fields =
        violations.stream()
            .map(v -> v.field().isEmpty() ? whole : v.field())
            .distinct()
            .collect(Collectors.joining(", "));
    return Answer.Refused.of(
        Problem.of(
                ProblemType.INVALID_PARAMETERS,
                "the "
                    + channel.inputs()
                    + " do not match the tool's "
                    + channel.pick("schema", "input schema")
                    + " at "
                    + fields
                    + "; nothing was recorded, so the same key may be used with corrected "
                    + channel.inputs())
            .with("errors", errors));
  }

  /**
   * The refusal of a tool the token may not call. It must not depend on whether a tool of that name
   * exists, so that a narrow token cannot probe for tool names.
   */
  public static Answer.Refused mayNotCall(Principal principal, String tool) {
    return Answer.Refused.of(
        Problem.of(
            ProblemType.FORBIDDEN,
            "this token may not call '"
                + Printable.name(tool)
                + "' (its scopes: "
                + principal.scopes()
                + "); nothing was recorded"));
  }

  /** An operation key that breaks the key rules; {@code reason} says which. */
  public static Answer.Refused invalidKey(String reason) {
    return Answer.Refused.of(Problem.of(ProblemType.INVALID_KEY, reason));
  }

  /** What a lookup of {@code key} answers: the operation, or why there is none. */
  public static Answer lookup(LedgerEngine engine, TenantId tenant, OperationKey key) {
    Optional<OperationRecord> record = engine.lookup(tenant, key);
    if (record.isPresent()) {
      return found(record.get(), engine.history(tenant, key));
    }
    return missing(engine, tenant, key);
  }

  /** An operation as lookups show it. */
  public static Answer.Found found(OperationRecord record, List<HistoryEntry> history) {
    return new Answer.Found(OperationJson.of(record, history), record.state());
  }

  /**
   * A key without a record: expired while its tombstone guards it, otherwise not found. The same
   * answer for a key never seen and a key of another tenant: a key grants nothing.
   */
  public static Answer.Refused missing(LedgerEngine engine, TenantId tenant, OperationKey key) {
    return engine.tombstone(tenant, key).map(Answers::expired).orElseGet(Answers::noOperation);
  }

  /** No operation with this key that the caller may see. */
  public static Answer.Refused noOperation() {
    return Answer.Refused.of(Problem.of(ProblemType.NOT_FOUND, "no operation with this key"));
  }

  /** The key's record was swept after its retention; see {@link OperationProblems#expired}. */
  public static Answer.Refused expired(Tombstone tombstone) {
    return Answer.Refused.of(OperationProblems.expired(tombstone));
  }
}
