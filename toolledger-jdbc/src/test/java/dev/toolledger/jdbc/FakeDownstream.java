package dev.toolledger.jdbc;

import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.protocol.Json;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A small in-JVM stand-in for the other system an external tool calls. It is not the system under
 * test: it records the effects it performed per downstream key, answers lookups truthfully (unless
 * told otherwise), and lets a test script how each call ends (the response is lost, the call
 * pauses, the downstream refuses before acting). An idempotent downstream performs one effect per
 * key however often it is called with it.
 */
final class FakeDownstream {

  /** How one perform call ends; scripted per call, a normal call when the script is empty. */
  enum Step {
    /** Performs the effect and answers. */
    EFFECT,
    /** Performs the effect, then the answer is lost (the caller sees a timeout). */
    EFFECT_THEN_LOSE_RESPONSE,
    /** Times out before the downstream acted (the caller cannot tell this from the above). */
    FAIL_BEFORE_EFFECT,
    /** Refuses before acting, and says so: certainly nothing happened. */
    NOT_DONE,
    /** Performs the effect, then the caller pauses (a GC pause, a stalled thread) until resumed. */
    EFFECT_THEN_PAUSE
  }

  /** How a lookup answers. */
  enum Answer {
    /** Found with the recorded outcome, or Absent. */
    TRUTH,
    PENDING,
    FAIL
  }

  private final Map<String, List<ToolResponse>> effects = new HashMap<>();
  private final Deque<Step> steps = new ConcurrentLinkedDeque<>();
  private final Deque<Answer> answers = new ConcurrentLinkedDeque<>();
  private volatile Answer defaultAnswer = Answer.TRUTH;
  private int receipts;

  /** Every perform call, in order. */
  final List<EffectContext> performs = new CopyOnWriteArrayList<>();

  /** Every lookup call, in order. */
  final List<EffectContext> lookups = new CopyOnWriteArrayList<>();

  /** Counted down when a perform call pauses. */
  final CountDownLatch paused = new CountDownLatch(1);

  /** Lets a paused perform call go on. */
  final CountDownLatch resume = new CountDownLatch(1);

  /** Scripts the next perform calls, in order. */
  void script(Step... next) {
    steps.addAll(List.of(next));
  }

  /** Scripts the next lookups, in order. */
  void answer(Answer... next) {
    answers.addAll(List.of(next));
  }

  /** How lookups answer once the scripted answers are used up. */
  void answerByDefault(Answer answer) {
    defaultAnswer = answer;
  }

  EffectResult perform(EffectContext context, boolean idempotent) throws Exception {
    performs.add(context);
    Step step = steps.poll();
    switch (step == null ? Step.EFFECT : step) {
      case NOT_DONE:
        return EffectResult.notDone("the downstream refused before acting");
      case FAIL_BEFORE_EFFECT:
        throw new SocketTimeoutException("timed out before the downstream acted");
      case EFFECT_THEN_LOSE_RESPONSE:
        apply(context.downstreamKey(), idempotent);
        throw new SocketTimeoutException("the response was lost");
      case EFFECT_THEN_PAUSE:
        ToolResponse late = apply(context.downstreamKey(), idempotent);
        paused.countDown();
        if (!resume.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never resumed the paused call");
        }
        return EffectResult.done(
            ToolResponse.of(late.status(), Json.object().put("late", "from the paused executor")));
      case EFFECT:
      default:
        return EffectResult.done(apply(context.downstreamKey(), idempotent));
    }
  }

  DownstreamStatus lookup(EffectContext context) throws Exception {
    lookups.add(context);
    Answer answer = answers.poll();
    switch (answer == null ? defaultAnswer : answer) {
      case PENDING:
        return new DownstreamStatus.Pending();
      case FAIL:
        throw new SocketTimeoutException("the lookup timed out");
      case TRUTH:
      default:
        List<ToolResponse> done = effects(context.downstreamKey());
        if (done.isEmpty()) {
          return new DownstreamStatus.Absent();
        }
        return new DownstreamStatus.Found(lookedUp(done.get(0)));
    }
  }

  /**
   * Performs an effect for a key as if an earlier caller's request had reached the downstream.
   *
   * @return the downstream's answer
   */
  synchronized ToolResponse apply(String downstreamKey, boolean idempotent) {
    List<ToolResponse> done = effects.computeIfAbsent(downstreamKey, k -> new ArrayList<>());
    if (idempotent && !done.isEmpty()) {
      return done.get(0);
    }
    ToolResponse response = ToolResponse.of(201, Json.object().put("receipt", "r-" + (++receipts)));
    done.add(response);
    return response;
  }

  /**
   * What a lookup reports for an effect: its own representation, distinguishable from perform's.
   */
  static ToolResponse lookedUp(ToolResponse performed) {
    return ToolResponse.of(
        200, Json.object().put("receipt", performed.body().get("receipt").asText()));
  }

  synchronized List<ToolResponse> effects(String downstreamKey) {
    return List.copyOf(effects.getOrDefault(downstreamKey, Collections.emptyList()));
  }

  synchronized int totalEffects() {
    return effects.values().stream().mapToInt(List::size).sum();
  }

  /** Perform calls made with this downstream key. */
  long performsFor(String downstreamKey) {
    return performs.stream().filter(c -> c.downstreamKey().equals(downstreamKey)).count();
  }

  /** Lookups made for this downstream key. */
  long lookupsFor(String downstreamKey) {
    return lookups.stream().filter(c -> c.downstreamKey().equals(downstreamKey)).count();
  }
}
