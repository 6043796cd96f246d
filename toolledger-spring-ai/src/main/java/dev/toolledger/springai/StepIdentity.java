package dev.toolledger.springai;

import dev.toolledger.core.fingerprint.CanonicalJson;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * How the host names the step of its run that a tool call of the model is. The step id, together
 * with the workflow id, selects the journal entry, and so the operation key: two tool calls with
 * the same step id are the same action and can cause at most one effect.
 *
 * <p>What a step id must survive is what decides the choice. Within one run the model may be asked
 * again for the same action, with a new tool-call id each time: the host retries the whole chat
 * exchange after a model error, Spring AI turns a tool error into a message and the model asks
 * again, or the agent process restarts and runs the turn once more. The model's tool-call id does
 * not survive any of these (Spring AI does not even pass it to a {@code ToolCallback}), nor does a
 * counter in memory. What does survive is what the model asks for: the tool and its arguments.
 * Hence the default, {@link #byArguments()}.
 *
 * <p>A host that plans its steps itself (a workflow engine, a fixed pipeline) supplies its own
 * identity, for example the plan position it keeps in the tool context. Whatever it returns must be
 * the same for every retry, re-ask and restart of the same intended action, and different for
 * different intended actions; it must not come from the model's free text.
 */
@FunctionalInterface
public interface StepIdentity {

  /**
   * The step id of {@code invocation}: 1 to {@value
   * dev.toolledger.client.journal.Action#MAX_ID_LENGTH} characters, not blank, without control
   * characters (the journal's rule for ids).
   */
  String stepId(ToolInvocation invocation);

  /**
   * One step per distinct (tool, arguments) in a workflow: {@code TOOL/HASH}, where {@code HASH} is
   * the SHA-256 of the arguments' RFC 8785 canonical JSON, base64url. Key order and number spelling
   * ({@code 1} vs {@code 1.0}) do not matter.
   *
   * <p>Survives: new tool-call ids, the host retrying the exchange, the model asking again after an
   * unknown outcome, an agent restart that replays the turn under the same workflow id.
   *
   * <p>Limit: the same tool with identical arguments twice in one workflow is one action, by
   * design. Two notes with the same title in one user request become one note; an action the user
   * really wants repeated belongs to a new workflow id (a new turn), or needs an argument that
   * tells the two apart. Arguments that differ in any way are different steps, so this identity
   * never reports a conflict.
   */
  static StepIdentity byArguments() {
    return invocation ->
        invocation.tool() + "/" + sha256(CanonicalJson.canonicalUtf8(invocation.arguments()));
  }

  private static String sha256(byte[] bytes) {
    try {
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
