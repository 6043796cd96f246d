package dev.toolledger.langchain4j;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.client.Outcome;
import dev.toolledger.protocol.Json;

/**
 * The text a model is given for an outcome: a small JSON object whose {@code outcome} member says
 * which of the three it is, so that an unknown outcome can never read as a success.
 */
final class ModelText {
  static final String REPLAYED_NOTE =
      "This action had already been carried out; this is its recorded result. It was not carried"
          + " out again.";
  static final String REFUSED_NOTE =
      "The tool refused this action and recorded the refusal. Calling the tool again is a new"
          + " action, which the tool decides anew.";
  static final String REJECTED_NOTE =
      "Nothing was carried out. Repeating this exact call returns the same answer; a corrected call"
          + " is a new action.";
  static final String UNKNOWN_NOTE =
      "It is not known whether this action took effect. Do not assume that it succeeded or that it"
          + " failed, and do not carry it out again as a new action: tell the user that it is being"
          + " checked. Calling the tool again with the same arguments only checks on this same"
          + " action.";

  private ModelText() {}

  static String kind(Outcome outcome) {
    if (outcome instanceof Outcome.Completed completed) {
      return completed.isSuccess() ? "completed" : "refused";
    }
    return outcome instanceof Outcome.Rejected ? "rejected" : "unknown";
  }

  static String of(Outcome outcome) {
    ObjectNode text = Json.object();
    text.put("outcome", kind(outcome));
    if (outcome instanceof Outcome.Completed completed) {
      text.put("status", completed.status());
      text.put("replayed", completed.replayed());
      text.set("result", completed.body());
      if (!completed.isSuccess()) {
        text.put("note", REFUSED_NOTE);
      } else if (completed.replayed()) {
        text.put("note", REPLAYED_NOTE);
      }
    } else if (outcome instanceof Outcome.Rejected rejected) {
      ObjectNode problem = text.putObject("problem");
      problem.put("type", rejected.problem().type().toString());
      problem.put("title", rejected.problem().title());
      problem.put("detail", rejected.problem().detail());
      text.put("note", REJECTED_NOTE);
    } else {
      text.put("note", UNKNOWN_NOTE);
    }
    return Json.write(text);
  }
}
