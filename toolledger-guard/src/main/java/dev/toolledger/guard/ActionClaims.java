package dev.toolledger.guard;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.protocol.CanonicalJson;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The same-action rule. A call identical to an earlier one (same tool, same RFC 8785 canonical
 * arguments) whose action has no definitive answer yet is the same action: it gets that action's
 * journal step, hence its operation key. "No definitive answer yet" means either still running in
 * this guard, or journaled as {@code PENDING} or {@code UNKNOWN} (sent by this or an earlier guard
 * process, never answered) and recorded within the claim window. Any other call is a new action
 * with a new step id, so a new key: after an action was answered (executed, replayed or refused),
 * an identical call makes a second one.
 *
 * <p>The decision is taken under one lock per guard, so two identical calls that arrive together
 * are one action. Guards of other processes on the same journal see each other's journaled actions
 * but not their in-flight ones before they are journaled; give each host its own session.
 */
final class ActionClaims {
  private static final char[] ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();
  private static final int ID_LENGTH = 12;

  private final ActionJournal journal;
  private final String session;
  private final Duration window;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Holder> running = new HashMap<>();

  ActionClaims(ActionJournal journal, String session, Duration window, Clock clock) {
    this.journal = journal;
    this.session = session;
    this.window = window;
    this.clock = clock;
  }

  /**
   * One call's action.
   *
   * @param action the journal action (session, step id, tool, arguments)
   * @param intent the tool and its canonical arguments
   * @param earlier true when the call joined an action an earlier call started
   */
  record Claim(Action action, String intent, boolean earlier) {
    Claim {
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(intent, "intent");
    }

    /** The guard's name for the action: its journal step id, never its key. */
    String id() {
      return action.stepId();
    }
  }

  private static final class Holder {
    final String step;
    int calls;

    Holder(String step) {
      this.step = step;
    }
  }

  /** Decides which action a call of {@code tool} with {@code arguments} is; see the class. */
  synchronized Claim claim(String tool, JsonNode arguments) {
    String intent = tool + '\u0000' + CanonicalJson.canonicalize(arguments);
    Holder holder = running.get(intent);
    boolean earlier = holder != null;
    if (holder == null) {
      Optional<JournalEntry> unanswered = unanswered(tool, intent);
      earlier = unanswered.isPresent();
      holder = new Holder(unanswered.map(JournalEntry::stepId).orElseGet(this::newId));
      running.put(intent, holder);
    }
    holder.calls++;
    return new Claim(Action.of(session, holder.step, tool, arguments), intent, earlier);
  }

  /** The call is answered; once every call of the action is, it is no longer running here. */
  synchronized void release(Claim claim) {
    Holder holder = running.get(claim.intent());
    if (holder != null && holder.step.equals(claim.id()) && --holder.calls == 0) {
      running.remove(claim.intent());
    }
  }

  /** The oldest unfinished action of this session with this intent, recorded within the window. */
  private Optional<JournalEntry> unanswered(String tool, String intent) {
    Instant since = clock.instant().minus(window);
    for (JournalEntry entry : journal.unfinished(session)) {
      if (entry.action().tool().equals(tool)
          && !entry.recordedAt().isBefore(since)
          && intentOf(entry.action()).equals(intent)) {
        return Optional.of(entry);
      }
    }
    return Optional.empty();
  }

  /** Whether an unfinished entry may still be claimed by an identical call. */
  boolean claimable(JournalEntry entry) {
    return !entry.status().isFinal() && !entry.recordedAt().isBefore(clock.instant().minus(window));
  }

  private static String intentOf(Action action) {
    return action.tool() + '\u0000' + CanonicalJson.canonicalize(action.parameters());
  }

  /** {@code act-} and 12 characters of an unambiguous alphabet: 60 random bits. */
  private String newId() {
    StringBuilder id = new StringBuilder("act-");
    for (int i = 0; i < ID_LENGTH; i++) {
      id.append(ID_ALPHABET[random.nextInt(ID_ALPHABET.length)]);
    }
    return id.toString();
  }
}
