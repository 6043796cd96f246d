package dev.toolledger.guard;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.protocol.StoredResponse;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard's tools: each of the node's write tools, forwarded through the journal and the retry
 * policy, plus {@value GuardConventions#PENDING_ACTIONS} and the guard's own {@value
 * GuardConventions#GET_OPERATION}, which look actions up by the guard's action id so that the model
 * never handles an operation key.
 */
final class GuardTools {
  private static final Logger LOG = LoggerFactory.getLogger(GuardTools.class);
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private static final JsonNode PENDING_INPUT =
      Json.parse("{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}}");

  private static final JsonNode GET_OPERATION_INPUT =
      Json.parse(
          "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
              + "\"action\":{\"type\":\"string\",\"description\":\"The action id from an"
              + " answer's text or from pending-actions (act-...).\"},"
              + "\"key\":{\"type\":\"string\",\"description\":\"For operators: an operation key"
              + " instead of an action id.\"}}}");

  private static final String OPERATION_KEY_META = "dev.toolledger/operation-key";

  private final ToolLedgerClient client;
  private final ActionJournal journal;
  private final ActionClaims claims;
  private final String session;

  /** What a lookup at start said about each unanswered action, by action id. */
  private final Map<String, String> atStart = new ConcurrentHashMap<>();

  GuardTools(ToolLedgerClient client, ActionClaims claims, String session) {
    this.client = client;
    this.journal = client.journal();
    this.claims = claims;
    this.session = session;
  }

  /** The guard's own tools. */
  List<SyncToolSpecification> own() {
    return List.of(
        new SyncToolSpecification(
            Tool.builder(
                    GuardConventions.PENDING_ACTIONS,
                    Json.mapper().convertValue(PENDING_INPUT, MAP))
                .description(
                    "Lists the actions sent through this guard that have no definitive answer yet"
                        + " (their outcome is unknown: they may or may not have happened), with"
                        + " their action ids. Check one with get-operation. Reads the local"
                        + " journal only.")
                .annotations(new ToolAnnotations(null, true, false, true, false, null))
                .build(),
            (exchange, request) -> pendingActions()),
        new SyncToolSpecification(
            Tool.builder(
                    GuardConventions.GET_OPERATION,
                    Json.mapper().convertValue(GET_OPERATION_INPUT, MAP))
                .description(
                    "Checks on the ToolLedger node whether an action happened: give the action id"
                        + " (act-...) from an answer or from pending-actions. Says whether it"
                        + " ran (with its recorded result), is running, did not run, or is"
                        + " unknown to the node itself.")
                .annotations(new ToolAnnotations(null, true, false, true, false, null))
                .build(),
            (exchange, request) -> getOperation(request)));
  }

  /**
   * A node tool as the host sees it: the same name, description and input schema; no output schema
   * (the guard's answers for refused and unknown calls have a shape of their own); {@code
   * idempotentHint: false}, because through the guard an identical call after an answer is a new
   * action (a second note), so a host must not repeat a call on its own; and the node's {@code
   * _meta} without {@value #OPERATION_KEY_META}, which the host does not send.
   */
  SyncToolSpecification forwarded(Tool tool) {
    ToolAnnotations node = tool.annotations();
    ToolAnnotations annotations =
        node == null
            ? new ToolAnnotations(null, false, false, false, null, null)
            : new ToolAnnotations(
                node.title(),
                node.readOnlyHint(),
                node.destructiveHint(),
                false,
                node.openWorldHint(),
                node.returnDirect());
    Map<String, Object> meta = null;
    if (tool.meta() != null) {
      meta = new LinkedHashMap<>(tool.meta());
      meta.remove(OPERATION_KEY_META);
    }
    Tool shown =
        Tool.builder(tool.name(), tool.inputSchema())
            .title(tool.title())
            .description(tool.description())
            .annotations(annotations)
            .meta(meta)
            .build();
    return new SyncToolSpecification(
        shown, (exchange, request) -> call(tool.name(), request.arguments()));
  }

  /** One call of a node tool: claim the action, drive it to an outcome, say what happened. */
  CallToolResult call(String tool, Map<String, Object> arguments) {
    JsonNode parameters = arguments == null ? Json.object() : Json.mapper().valueToTree(arguments);
    ActionClaims.Claim claim;
    try {
      claim = claims.claim(tool, parameters);
    } catch (RuntimeException e) {
      LOG.warn("could not journal a call of {}; nothing was sent", tool, e);
      return GuardAnswers.refused(tool, "none", journalDown(e));
    }
    try {
      Outcome outcome = client.call(claim.action());
      CallToolResult answer = GuardAnswers.of(tool, claim, outcome);
      LOG.info("action {} ({}): {}", claim.id(), tool, answer.meta().get(GuardConventions.OUTCOME));
      return answer;
    } catch (RuntimeException e) {
      // record() failed before anything was sent, or the journal broke afterwards; in the second
      // case the action may have been sent, so say unknown unless it is certain nothing left.
      LOG.warn("action {} ({}) failed in the guard", claim.id(), tool, e);
      if (!mayHaveBeenSent(claim.id())) {
        return GuardAnswers.refused(tool, claim.id(), journalDown(e));
      }
      return GuardAnswers.unknown(
          tool, claim.id(), "the guard failed (" + e.getClass().getSimpleName() + ")");
    } finally {
      claims.release(claim);
    }
  }

  /** Looks the session's unanswered actions up on the node, for the log and pending-actions. */
  void checkAtStart() {
    List<JournalEntry> unfinished;
    try {
      unfinished = journal.unfinished(session);
    } catch (RuntimeException e) {
      LOG.warn("could not read the journal at start", e);
      return;
    }
    if (!unfinished.isEmpty()) {
      LOG.info("{} action(s) without a definitive answer in the journal", unfinished.size());
    }
    for (JournalEntry entry : unfinished) {
      if (!claims.claimable(entry)) {
        atStart.put(entry.stepId(), "BEYOND_CLAIM_WINDOW");
        continue;
      }
      LookupResult found = client.lookup(entry.key());
      String state =
          found instanceof LookupResult.Found f
              ? f.state().name()
              : found instanceof LookupResult.NotFound ? "NOT_FOUND" : "UNAVAILABLE";
      atStart.put(entry.stepId(), state);
      LOG.info(
          "at start: action {} ({}) is {} on the node; an identical call or {} answers it",
          entry.stepId(),
          entry.action().tool(),
          state,
          GuardConventions.GET_OPERATION);
    }
  }

  CallToolResult pendingActions() {
    List<JournalEntry> unfinished = journal.unfinished(session);
    ArrayNode list = Json.mapper().createArrayNode();
    StringBuilder words = new StringBuilder();
    for (JournalEntry entry : unfinished) {
      ObjectNode item = list.addObject();
      item.put("action", entry.stepId());
      item.put("tool", entry.action().tool());
      item.set("arguments", entry.action().parameters());
      item.put("status", entry.status() == ActionStatus.UNKNOWN ? "unknown" : "unanswered");
      item.put("recordedAt", entry.recordedAt().toString());
      item.put("claimable", claims.claimable(entry));
      String start = atStart.get(entry.stepId());
      if (start != null) {
        item.put("nodeStateAtStart", start);
      }
      words
          .append("\n- ")
          .append(entry.stepId())
          .append(": ")
          .append(entry.action().tool())
          .append(' ')
          .append(Json.write(entry.action().parameters()))
          .append(", recorded ")
          .append(entry.recordedAt());
    }
    ObjectNode body = Json.object();
    body.set("actions", list);
    String text =
        unfinished.isEmpty()
            ? "No pending actions: every action sent through this guard has a definitive answer."
            : unfinished.size()
                + " action(s) have no definitive answer yet; they may or may not have happened."
                + " Do not repeat them with changed arguments. Check each with "
                + GuardConventions.GET_OPERATION
                + " {\"action\": \"...\"}:"
                + words;
    return GuardAnswers.info(text, body, false);
  }

  CallToolResult getOperation(CallToolRequest request) {
    Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
    Object action = arguments.get("action");
    Object rawKey = arguments.get("key");
    Optional<JournalEntry> entry;
    OperationKey key;
    try {
      if (action instanceof String id && !id.isBlank()) {
        entry = journal.find(session, id);
        if (entry.isEmpty()) {
          return GuardAnswers.info(
              "No action with id " + id + " is in this guard's journal.", Json.object(), true);
        }
        key = entry.get().key();
      } else if (rawKey instanceof String k && !k.isBlank()) {
        key = OperationKey.of(k);
        entry = journal.find(key);
      } else {
        return GuardAnswers.info(
            "Give the action id: {\"action\": \"act-...\"}.", Json.object(), true);
      }
    } catch (RuntimeException e) {
      return GuardAnswers.info(
          "That is not a usable action id or key (" + e.getClass().getSimpleName() + ").",
          Json.object(),
          true);
    }
    String tool = entry.map(e -> e.action().tool()).orElse("the tool");
    ObjectNode body = Json.object();
    entry.ifPresent(e -> body.put("action", e.stepId()));
    entry.ifPresent(e -> body.put("tool", e.action().tool()));
    LookupResult found = client.lookup(key);
    if (found instanceof LookupResult.Found f) {
      body.put("state", f.state().name());
      body.put("createdAt", f.createdAt().toString());
      f.completedAt().ifPresent(at -> body.put("completedAt", at.toString()));
      String words;
      switch (f.state()) {
        case COMPLETED -> {
          StoredResponse response = f.response().orElseThrow();
          ObjectNode recorded = body.putObject("response");
          recorded.put("status", response.status());
          recorded.set("body", parseBody(response.body()));
          entry
              .filter(e -> !e.status().isFinal())
              .ifPresent(e -> markQuietly(() -> journal.markCompleted(e.key(), response)));
          words =
              "It happened: "
                  + tool
                  + " ran once (recorded status "
                  + response.status()
                  + "). Do not repeat it. Result: "
                  + response.body();
        }
        case IN_PROGRESS ->
            words = "It is running on the node right now. Do not repeat it; ask again shortly.";
        case NOT_EXECUTED -> {
          entry
              .filter(e -> !e.status().isFinal())
              .ifPresent(
                  e ->
                      markQuietly(
                          () ->
                              journal.markRejected(
                                  e.key(),
                                  ProblemDetails.of(
                                          ProblemType.NOT_EXECUTED,
                                          "resolved as not executed on the node")
                                      .document())));
          words =
              "It did not happen and never will (resolved as not executed). You may call "
                  + tool
                  + " again: that is a new action.";
        }
        default ->
            words =
                "The node itself holds this outcome as unknown: it may have happened. Do not"
                    + " repeat it; an operator must resolve it.";
      }
      return GuardAnswers.info(words, body, false);
    }
    if (found instanceof LookupResult.NotFound) {
      body.put("state", "NOT_FOUND");
      boolean claimable = entry.map(claims::claimable).orElse(false);
      return GuardAnswers.info(
          "The node has no record of it: it did not happen."
              + (claimable
                  ? " Calling "
                      + tool
                      + " again with exactly the same arguments sends it once, as the same"
                      + " action."
                  : ""),
          body,
          false);
    }
    body.put("state", "UNAVAILABLE");
    return GuardAnswers.info(
        "Could not reach the node to check ("
            + ((LookupResult.Unavailable) found).reason()
            + "). Do not repeat the action meanwhile; check again later.",
        body,
        true);
  }

  /** Whether the action is journaled (so it may have been sent); true when that is unclear. */
  private boolean mayHaveBeenSent(String step) {
    try {
      return journal.find(session, step).isPresent();
    } catch (RuntimeException e) {
      return true;
    }
  }

  private static void markQuietly(Runnable mark) {
    try {
      mark.run();
    } catch (RuntimeException e) {
      LOG.warn("could not keep a looked-up outcome in the journal: {}", e.getMessage());
    }
  }

  private static JsonNode parseBody(String body) {
    try {
      return Json.parse(body);
    } catch (RuntimeException e) {
      return Json.mapper().getNodeFactory().textNode(body);
    }
  }

  private static ProblemDetails journalDown(RuntimeException e) {
    ObjectNode document = Json.object();
    document.put("type", ProblemDetails.ABOUT_BLANK.toString());
    document.put("title", "Guard journal unavailable");
    document.put("status", 503);
    document.put(
        "detail",
        "the guard could not journal the action ("
            + e.getClass().getSimpleName().toLowerCase(Locale.ROOT)
            + "), so nothing was sent");
    return ProblemDetails.fromDocument(document, 503);
  }
}
