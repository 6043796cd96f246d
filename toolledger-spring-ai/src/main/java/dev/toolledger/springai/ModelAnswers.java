package dev.toolledger.springai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ProblemDetails;
import dev.toolledger.protocol.Json;

/**
 * What the model is told about an outcome: one JSON object per tool call, whose {@code outcome} is
 * {@code completed}, {@code refused}, {@code rejected} or {@code unknown}, with a {@code note} in
 * plain words where the model must act on it. The shapes are documented in
 * docs/agents-spring-ai.md.
 *
 * <p>An unknown outcome is never worded as success or failure: it says that nobody knows yet and
 * that the call must not be repeated. The operation key is not shown to the model; the model has no
 * use for it and must never choose one.
 */
final class ModelAnswers {
  static final String REPLAYED_NOTE =
      "This is the recorded result of this action, which had already been carried out (an earlier"
          + " answer was lost, or the agent restarted). It was not done again.";
  static final String REFUSED_NOTE =
      "The tool refused this action and recorded the refusal. Asking again is a new action,"
          + " which the tool decides anew.";
  static final String REJECTED_NOTE =
      "Nothing was done. Fix the cause before trying again; the same call is refused the same"
          + " way.";
  static final String UNKNOWN_NOTE =
      "It is not known whether this action happened. Do not repeat it, and do not assume that it"
          + " succeeded or failed: tell the user that it is being checked.";

  private ModelAnswers() {}

  static String of(Outcome outcome) {
    ObjectNode answer = Json.object();
    if (outcome instanceof Outcome.Completed completed) {
      answer.put("outcome", completed.isSuccess() ? "completed" : "refused");
      answer.put("status", completed.status());
      answer.put("replayed", completed.replayed());
      answer.set("result", completed.body());
      if (!completed.isSuccess()) {
        answer.put("note", REFUSED_NOTE);
      } else if (completed.replayed()) {
        answer.put("note", REPLAYED_NOTE);
      }
    } else if (outcome instanceof Outcome.Rejected rejected) {
      return rejected(rejected.problem());
    } else {
      answer.put("outcome", "unknown");
      answer.put("note", UNKNOWN_NOTE);
    }
    return Json.write(answer);
  }

  static String rejected(ProblemDetails problem) {
    ObjectNode answer = Json.object();
    answer.put("outcome", "rejected");
    answer.set("problem", problem.document());
    answer.put("note", REJECTED_NOTE);
    return Json.write(answer);
  }
}
