package dev.toolledger.server.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.tool.ToolRegistry.RegisteredTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.auth.Principal;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tasks of MCP 2025-11-25 ({@code tasks/get}, {@code tasks/result}, {@code tasks/list}) over
 * ToolLedger's operations. A client that sends a {@code tools/call} with a {@code task} member gets
 * a {@code CreateTaskResult} instead of the tool result: the task stands for the call's operation
 * (tenant and key), so its status is read from the ledger on every poll, and its result is the
 * recorded outcome, replayed. A call that never reached a record (no key, invalid arguments, rate
 * limited, ...) gets a task that failed at once, holding today's error result.
 *
 * <p>A task id is 32 random bytes (base64url), found only by its own tenant: another tenant (or a
 * token without the tool's scope) polling it gets the same not-found error as an id never issued.
 * Tasks live in this node's memory, each kept for its tool's retention (the operation's record is
 * kept as long) and at most {@value #PER_TENANT} per tenant (the oldest go first); they do not
 * survive a restart, but the operation does: a call with the same key replays its outcome.
 */
final class McpTasks {
  /** The method names of the tasks utility (MCP 2025-11-25). */
  static final String GET = "tasks/get";

  static final String RESULT = "tasks/result";
  static final String LIST = "tasks/list";

  /** The protocol revision whose tasks this implements. */
  static final String PROTOCOL_VERSION = "2025-11-25";

  /** The error message of an unknown (or foreign) task id, the specification's own example. */
  static final String NOT_FOUND = "Failed to retrieve task: Task not found";

  static final int PER_TENANT = 1000;
  private static final int PAGE = 100;
  private static final Duration RESULT_POLL = Duration.ofMillis(50);

  /** A task status of MCP 2025-11-25. */
  enum Status {
    WORKING("working"),
    INPUT_REQUIRED("input_required"),
    COMPLETED("completed"),
    FAILED("failed");

    final String wire;

    Status(String wire) {
      this.wire = wire;
    }

    boolean terminal() {
      return this == COMPLETED || this == FAILED;
    }
  }

  /**
   * One task. {@code key} is null, and {@code fixed} holds the result, for a call that recorded
   * nothing; otherwise the status comes from the operation's record.
   */
  private static final class Task {
    final String id;
    final TenantId tenant;
    final String tool;
    final OperationKey key;
    final CallToolResult fixed;
    final Instant createdAt;
    final Duration ttl;
    Status status;
    Instant lastUpdatedAt;

    Task(
        String id,
        TenantId tenant,
        String tool,
        OperationKey key,
        CallToolResult fixed,
        Instant createdAt,
        Duration ttl,
        Status status) {
      this.id = id;
      this.tenant = tenant;
      this.tool = tool;
      this.key = key;
      this.fixed = fixed;
      this.createdAt = createdAt;
      this.ttl = ttl;
      this.status = status;
      this.lastUpdatedAt = createdAt;
    }

    boolean expired(Instant now) {
      return !now.isBefore(createdAt.plus(ttl));
    }
  }

  private final LedgerEngine engine;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Task> tasks = new LinkedHashMap<>();

  McpTasks(LedgerEngine engine, Clock clock) {
    this.engine = engine;
    this.clock = clock;
  }

  /** Whether a {@code tools/call}'s params ask for a task (a {@code task} object). */
  static boolean requested(JsonNode params) {
    return params != null && params.path("task").isObject();
  }

  /** The {@code tasks} capability of the server, for {@code initialize}'s answer. */
  static ObjectNode capability() {
    ObjectNode tasks = Json.object();
    tasks.putObject("list");
    tasks.putObject("requests").putObject("tools").putObject("call");
    return tasks;
  }

  /**
   * Makes the task of a call whose tool result is {@code result}, and answers its {@code
   * CreateTaskResult}.
   */
  ObjectNode create(Principal principal, String tool, CallToolResult result) {
    Map<String, Object> meta = result.meta() == null ? Map.of() : result.meta();
    OperationKey key =
        meta.get(McpConventions.OPERATION_KEY) instanceof String k ? OperationKey.of(k) : null;
    String state = meta.get(McpConventions.STATE) instanceof String s ? s : null;
    boolean recorded = key != null && state != null;
    Status status;
    if (OperationState.IN_PROGRESS.name().equals(state)) {
      status = Status.WORKING;
    } else if (OperationState.UNKNOWN.name().equals(state)) {
      status = Status.INPUT_REQUIRED;
    } else {
      status = Boolean.TRUE.equals(result.isError()) ? Status.FAILED : Status.COMPLETED;
    }
    Duration ttl =
        engine
            .tools()
            .find(tool)
            .map(RegisteredTool::descriptor)
            .map(engine::retention)
            .orElse(Duration.ofHours(1));
    Instant now = clock.instant();
    Task task =
        new Task(
            newId(),
            principal.tenant(),
            tool,
            recorded ? key : null,
            recorded ? null : result,
            now,
            ttl,
            status);
    synchronized (tasks) {
      forgetExpiredAndOldest(principal.tenant(), now);
      tasks.put(task.id, task);
    }
    ObjectNode answer = Json.object();
    answer.set("task", json(task));
    return answer;
  }

  /** {@code tasks/get}: the task, or empty when this caller may not see it. */
  Optional<ObjectNode> get(Principal principal, String id) {
    return find(principal, id).map(task -> json(refresh(task)));
  }

  /**
   * {@code tasks/result}: waits up to the engine's max wait for the task to end, then answers what
   * a {@code tools/call} with the task's key would answer now; empty when this caller may not see
   * it.
   */
  Optional<CallToolResult> result(Principal principal, String id) throws InterruptedException {
    Optional<Task> found = find(principal, id);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Task task = found.get();
    if (task.fixed != null) {
      return Optional.of(task.fixed);
    }
    long deadline = System.nanoTime() + engine.config().maxWait().toNanos();
    Optional<OperationRecord> record = engine.lookup(task.tenant, task.key);
    while (record.map(r -> !ended(r.state())).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(RESULT_POLL.toMillis());
      record = engine.lookup(task.tenant, task.key);
    }
    return Optional.of(resultOf(task, record));
  }

  /** {@code tasks/list}: the caller's tasks, oldest first, a page after {@code cursor}. */
  ObjectNode list(Principal principal, String cursor) {
    List<Task> mine = new ArrayList<>();
    Instant now = clock.instant();
    synchronized (tasks) {
      boolean after = cursor == null;
      for (Task task : tasks.values()) {
        if (!after) {
          after = task.id.equals(cursor);
          continue;
        }
        if (visible(principal, task, now)) {
          mine.add(task);
        }
      }
    }
    ObjectNode answer = Json.object();
    var array = answer.putArray("tasks");
    for (int i = 0; i < mine.size() && i < PAGE; i++) {
      Task task = mine.get(i);
      array.add(json(refresh(task)));
    }
    if (mine.size() > PAGE) {
      answer.put("nextCursor", mine.get(PAGE - 1).id);
    }
    return answer;
  }

  /** The tasks this node holds, for tests. */
  int size() {
    synchronized (tasks) {
      return tasks.size();
    }
  }

  private Optional<Task> find(Principal principal, String id) {
    if (id == null) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    synchronized (tasks) {
      Task task = tasks.get(id);
      if (task != null && task.expired(now)) {
        tasks.remove(id);
        return Optional.empty();
      }
      return task != null && visible(principal, task, now) ? Optional.of(task) : Optional.empty();
    }
  }

  /** Its own tenant only, and only with the tool's scope: a replay needs it as a call does. */
  private static boolean visible(Principal principal, Task task, Instant now) {
    return task.tenant.equals(principal.tenant())
        && principal.mayCall(task.tool)
        && !task.expired(now);
  }

  /** Reads the operation's state into the task; answers the task. */
  private Task refresh(Task task) {
    Instant now = clock.instant();
    if (task.key == null) {
      return task;
    }
    Status status = statusOf(engine.lookup(task.tenant, task.key));
    synchronized (tasks) {
      if (status != task.status && !task.status.terminal()) {
        task.status = status;
        task.lastUpdatedAt = now;
      }
    }
    return task;
  }

  private static Status statusOf(Optional<OperationRecord> record) {
    if (record.isEmpty()) {
      // Swept: the outcome is gone, and tasks/result answers operation-expired.
      return Status.FAILED;
    }
    return switch (record.get().state()) {
      case IN_PROGRESS -> Status.WORKING;
      case UNKNOWN -> Status.INPUT_REQUIRED;
      case NOT_EXECUTED -> Status.FAILED;
      case COMPLETED ->
          record.get().response().orElseThrow().status() >= 400 ? Status.FAILED : Status.COMPLETED;
    };
  }

  private static boolean ended(OperationState state) {
    return state == OperationState.COMPLETED || state == OperationState.NOT_EXECUTED;
  }

  private CallToolResult resultOf(Task task, Optional<OperationRecord> record) {
    if (record.isEmpty()) {
      return McpResults.of(Answers.missing(engine, task.tenant, task.key), task.key);
    }
    OperationRecord r = record.get();
    ExecutionOutcome outcome =
        switch (r.state()) {
          case COMPLETED -> new ExecutionOutcome.Replayed(r);
          case NOT_EXECUTED -> new ExecutionOutcome.NotExecuted(r);
          case UNKNOWN -> new ExecutionOutcome.OutcomeUnknown(r);
          case IN_PROGRESS -> new ExecutionOutcome.InProgress(engine.config().retryAfter());
        };
    return McpResults.of(outcome, task.key);
  }

  private ObjectNode json(Task task) {
    ObjectNode json = Json.object();
    Status status;
    Instant updated;
    synchronized (tasks) {
      status = task.status;
      updated = task.lastUpdatedAt;
    }
    json.put("taskId", task.id);
    json.put("status", status.wire);
    String message = message(task, status);
    if (message != null) {
      json.put("statusMessage", message);
    }
    json.put("createdAt", task.createdAt.toString());
    json.put("lastUpdatedAt", updated.toString());
    json.put("ttl", task.ttl.toMillis());
    if (!status.terminal()) {
      json.put("pollInterval", engine.config().retryAfter().toMillis());
    }
    return json;
  }

  private static String message(Task task, Status status) {
    return switch (status) {
      case WORKING ->
          "operation "
              + task.key.value()
              + " is executing; its recorded outcome is this task's result";
      case INPUT_REQUIRED ->
          "the outcome of operation "
              + task.key.value()
              + " is unknown: its effect may or may not have happened and it will not be executed"
              + " again; an operator resolves it (POST /v1/operations/{key}/resolve)";
      case COMPLETED, FAILED -> null;
    };
  }

  private void forgetExpiredAndOldest(TenantId tenant, Instant now) {
    int mine = 0;
    Task oldest = null;
    for (Iterator<Task> it = tasks.values().iterator(); it.hasNext(); ) {
      Task task = it.next();
      if (task.expired(now)) {
        it.remove();
      } else if (task.tenant.equals(tenant)) {
        mine++;
        if (oldest == null) {
          oldest = task;
        }
      }
    }
    if (mine >= PER_TENANT && oldest != null) {
      tasks.remove(oldest.id);
    }
  }

  private String newId() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
